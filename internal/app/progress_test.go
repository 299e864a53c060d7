package app

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// phases records the phases a use case reports, in order, once each.
type phases struct {
	mu   sync.Mutex
	seen []string
}

func (p *phases) record(phase string, _, _ int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.seen) == 0 || p.seen[len(p.seen)-1] != phase {
		p.seen = append(p.seen, phase)
	}
}

// Use cases name their phases to the progress they are given, the
// engines and adapters below them report through it too, and the
// results are those of an App nobody listens to.
func TestUseCasesReportTheirPhases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var rep phases
	got, err := testApp().WithProgress(rep.record).Report(ctx, demoReport())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"simulating cluster", "checking snapshot", "allocating cost", "building the savings ledger"}
	if diff := cmp.Diff(want, rep.seen); diff != "" {
		t.Errorf("report phases (-want +got):\n%s", diff)
	}
	silent, err := testApp().Report(ctx, demoReport())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(silent.Report)
	b, _ := json.Marshal(got.Report)
	if string(a) != string(b) {
		t.Error("the report differs when progress is reported")
	}

	var plan phases
	req := DefaultPlanRequest()
	req.Source = Source{Demo: DefaultDemo()}
	if _, err := testApp().WithProgress(plan.record).Plan(ctx, req); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(plan.seen, "planning") || plan.seen[len(plan.seen)-1] != "planning" {
		t.Errorf("plan phases %q: want planning last", plan.seen)
	}
}

func TestWithProgressLeavesTheAppAlone(t *testing.T) {
	t.Parallel()
	a := testApp()
	b := a.WithProgress(func(string, int64, int64) {})
	if a.progress != nil || b.progress == nil || b.now == nil {
		t.Errorf("WithProgress changed the original (%v) or lost the clock", a.progress != nil)
	}
}
