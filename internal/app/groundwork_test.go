package app

import (
	"context"
	"math"
	"testing"

	"github.com/gpuwise/gpuwise/internal/audit"
)

// The demo's days 0–30 groundwork comes from the audit and generate vpa
// of the same source (one number, one source): the taint's dollars are
// the audit's GW002 findings', the admission step's at-stake dollars are
// its findings of the enforced rules', the VPA step counts the objects
// `generate vpa` writes; and none of it enters the saving.
func TestGroundworkIsTheAuditsAndGenerates(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	ad := DefaultAdviseRequest()
	ad.Source = Source{Demo: DefaultDemo()}
	adv, err := a.Advise(ctx, ad)
	if err != nil {
		t.Fatal(err)
	}
	au := DefaultAuditRequest()
	au.Source = Source{Demo: DefaultDemo()}
	au.Window = ad.Window
	ar, err := a.Audit(ctx, au)
	if err != nil {
		t.Fatal(err)
	}
	var nonGPU, all float64
	untainted, nonGPUs := 0, 0
	for _, f := range ar.Result.Findings {
		if f.MonthlyUSD != nil {
			all += *f.MonthlyUSD
		}
		switch f.Rule {
		case audit.RuleNodeUntainted:
			untainted++
		case audit.RuleNonGPUPod:
			nonGPUs++
			nonGPU += *f.MonthlyUSD
		}
	}
	rr := DefaultRecommendRequest()
	rr.Source = Source{Demo: DefaultDemo()}
	vpa, err := a.GenerateVPA(ctx, rr)
	if err != nil {
		t.Fatal(err)
	}
	l := adv.Ledger
	got := map[string]int{}
	for _, f := range l.Foundations {
		got[f.Kind] = f.Targets
		switch f.Kind {
		case "taint":
			if f.USDMonth == nil || *f.USDMonth != math.Round(nonGPU*100)/100 || f.Targets != untainted+nonGPUs || untainted == 0 {
				t.Errorf("taint %+v, want the audit's %d untainted nodes, %d non-GPU workloads, $%.2f", f, untainted, nonGPUs, nonGPU)
			}
		case "admission-warn":
			// On the demo every priced finding is of an enforced rule.
			if f.USDMonth == nil || *f.USDMonth != math.Round(all*100)/100 {
				t.Errorf("admission %+v, want the audit's $%.2f at stake", f, all)
			}
		case "vpa-off":
			if f.Targets != len(vpa.Files) || f.Targets == 0 {
				t.Errorf("vpa %d objects, generate vpa writes %d", f.Targets, len(vpa.Files))
			}
		case "dcgm":
			if f.Targets != 1 || f.GPUHours == nil || *f.GPUHours <= 0 {
				t.Errorf("dcgm %+v, want asr-whisper's node and its GPU-hours", f)
			}
		}
	}
	if len(got) != 4 || len(l.Phases[0].Foundations) != 4 {
		t.Errorf("groundwork %v, phase 1 %v: want the four steps", got, l.Phases[0].Foundations)
	}
	if err := l.Reconcile(); err != nil {
		t.Error(err)
	}
}
