package app

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/sim"
	"github.com/gpuwise/gpuwise/internal/tracker"
)

// truthRun is the demo week with changes carried out (sim.Apply) and
// the tracker's plan of the demo ledger, plus extra actions, pinned at
// hour 72 on the unchanged week and observed again on the changed one.
type truthRun struct {
	plan  *tracker.Plan
	proof *tracker.Proof
	// rates are the changed week's nodes' $/h; before the unchanged's.
	rates, before map[string]float64
	ledger        *ledger.Ledger
}

func runTruth(t *testing.T, extra []ledger.Action, changes ...sim.Change) truthRun {
	t.Helper()
	a := New(func() time.Time { return time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC) })
	cfg := sim.DefaultConfig()
	s0, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	prep0, err := Prepare(s0)
	if err != nil {
		t.Fatal(err)
	}
	rr := DefaultReportRequest()
	rr.Source = Source{Snapshot: &InMemory{Prepared: prep0}}
	res, err := a.Report(context.Background(), rr)
	if err != nil || res.Ledger == nil {
		t.Fatalf("%v %v", err, res.LedgerErr)
	}
	l := *res.Ledger
	l.Actions = append(slices.Clone(l.Actions), extra...)
	s1, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Apply(s1, changes); err != nil {
		t.Fatal(err)
	}
	prep1, err := Prepare(s1)
	if err != nil {
		t.Fatalf("the changed week: %v", err)
	}
	p := tracker.New("demo")
	base := cluster.Window{Start: cfg.Start, End: cfg.Start.Add(DemoBaselineHour * time.Hour)}
	for _, o := range []tracker.Observation{{Window: base, Snapshot: prep0.View(), Ledger: &l}, {Window: prep1.Window(), Snapshot: prep1.View(), Ledger: &l}} {
		if err := p.Observe(o); err != nil {
			t.Fatal(err)
		}
	}
	br := DefaultBreakdownRequest()
	br.Source, br.By = Source{Snapshot: &InMemory{Prepared: prep1}}, []string{"node"}
	bd, err := a.Breakdown(context.Background(), br)
	if err != nil {
		t.Fatal(err)
	}
	pf := p.Realise(spreadNodeHours(prep1.View(), bd.Reports["node"]))
	if err := pf.Total.Reconcile(); err != nil {
		t.Fatal(err)
	}
	return truthRun{plan: p, proof: pf, rates: nodeRates(t, a, prep1), before: nodeRates(t, a, prep0), ledger: &l}
}

func (r truthRun) realised(id string) tracker.Realised {
	for _, x := range r.proof.Actions {
		if x.ID == id {
			return x
		}
	}
	return tracker.Realised{}
}

func (r truthRun) flag(id, name string) tracker.Flag {
	for _, f := range r.proof.Flags {
		if f.Action == id && f.Name == name {
			return f
		}
	}
	return tracker.Flag{Status: "absent"}
}

// podOf is the first pod of the workload running at t in the demo week.
func podOf(t *testing.T, w string, at time.Time) cluster.Pod {
	t.Helper()
	s, err := sim.Generate(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Pods {
		if p.WorkloadKey() == w && !p.Start.After(at) && (p.End.IsZero() || p.End.After(at)) {
			return p
		}
	}
	t.Fatalf("no pod of %s at %s", w, at)
	return cluster.Pod{}
}

// action is a ledger action of a kind on one workload, as the ledger
// would propose it.
func action(lv, kind, w string, ev ...ledger.Evidence) ledger.Action {
	return ledger.Action{ID: "T1", Key: lv + ":" + kind + ":" + w, Lever: lv, Kind: kind, Title: kind + " " + w, Target: w,
		Items: []ledger.Item{{Target: w, Evidence: ev}}, Targets: []ledger.Target{{Kind: "workload", Name: w}}}
}

// Simulator ground truth for the changes that realise nothing on the
// bill by themselves, and their backfires: a right-sizing and a MIG
// re-cut leave every node's $/h as it was (the truth: $0; the tracker
// says prerequisite), are seen applied at the hour they happened, and
// each red flag fires on its backfiring change and not on the clean one
// (latency: the simulator's vLLM servers are BackfireLatency times slower
// after a change that backfires, as fast after one that does not).
func TestPrerequisiteChangesAndTheirRedFlags(t *testing.T) {
	at := sim.DefaultConfig().Start.Add(DemoAppliedHour * time.Hour)
	const chat, intent, ocr = "inference/Deployment/chat-llm", "inference/Deployment/intent-classifier", "inference/Deployment/ocr-vision"
	const summarize = "inference/Deployment/summarize-llm"
	cp := podOf(t, chat, at)
	k := slices.IndexFunc(cp.Containers, func(c cluster.Container) bool { return len(c.GPURequests) > 0 })
	ct := cp.Containers[k]
	peak := int64(ct.Memory.Max)
	gib := func(b int64) float64 { return float64(b) / (1 << 30) }
	resize := func(mem int64) (ledger.Action, sim.Change) {
		a := action("rightsize", lever.KindResize, chat,
			ledger.Evidence{Name: "cpu_request_now", Value: float64(ct.CPURequestMilli) / 1000}, ledger.Evidence{Name: "cpu_request_new", Value: float64(ct.CPURequestMilli/2) / 1000},
			ledger.Evidence{Name: "memory_request_now", Value: gib(ct.MemoryRequest)}, ledger.Evidence{Name: "memory_request_new", Value: gib(mem)})
		return a, sim.Change{Kind: sim.Resize, Workload: chat, At: at, CPUMilli: ct.CPURequestMilli / 2, MemoryBytes: mem}
	}
	mig := func(w, node, profile string) (ledger.Action, sim.Change) {
		return action("shape", lever.KindMIG, w), sim.Change{Kind: sim.ToMIG, Workload: w, Node: node, Profile: profile, At: at}
	}
	nodeOf := func(w string) string { return podOf(t, w, at).Node }
	for _, c := range []struct {
		name       string
		act        func() (ledger.Action, sim.Change)
		flag, want string
	}{
		{"right-sized with room above the peak", func() (ledger.Action, sim.Change) { return resize(peak * 6 / 5) }, tracker.FlagOOMKillsUp, tracker.Clear},
		{"right-sized below the peak working set", func() (ledger.Action, sim.Change) { return resize(peak / 2) }, tracker.FlagOOMKillsUp, tracker.Firing},
		{"MIG 1g.10gb for 6 GiB at 5 % busy", func() (ledger.Action, sim.Change) { return mig(intent, nodeOf(intent), "1g.10gb") }, tracker.FlagLowUtilization, tracker.Clear},
		{"MIG 7g.80gb for 6 GiB at 5 % busy", func() (ledger.Action, sim.Change) { return mig(intent, nodeOf(intent), "7g.80gb") }, tracker.FlagLowUtilization, tracker.Firing},
		{"MIG 3g.40gb for 29 GiB", func() (ledger.Action, sim.Change) { return mig(ocr, nodeOf(ocr), "3g.40gb") }, tracker.FlagOOMKillsUp, tracker.Clear},
		{"MIG 1g.10gb for 29 GiB backfires", func() (ledger.Action, sim.Change) { return mig(ocr, nodeOf(ocr), "1g.10gb") }, tracker.FlagOOMKillsUp, tracker.Firing},
		{"right-sized with room: vLLM latency as before", func() (ledger.Action, sim.Change) { return resize(peak * 6 / 5) }, tracker.FlagLatencyUp, tracker.Clear},
		{"right-sized below the peak: vLLM latency +25 %", func() (ledger.Action, sim.Change) { return resize(peak / 2) }, tracker.FlagLatencyUp, tracker.Firing},
		{"MIG 7g.80gb for the 72 GB vLLM server: latency as before", func() (ledger.Action, sim.Change) { return mig(summarize, nodeOf(summarize), "7g.80gb") }, tracker.FlagLatencyUp, tracker.Clear},
		{"MIG 1g.10gb for the 72 GB vLLM server: latency +25 %", func() (ledger.Action, sim.Change) { return mig(summarize, nodeOf(summarize), "1g.10gb") }, tracker.FlagLatencyUp, tracker.Firing},
		{"MIG onto a Triton server: no histogram", func() (ledger.Action, sim.Change) { return mig(ocr, nodeOf(ocr), "1g.10gb") }, tracker.FlagLatencyUp, tracker.NoData},
		{"MIG 7g.80gb: one slice, used", func() (ledger.Action, sim.Change) { return mig(intent, nodeOf(intent), "7g.80gb") }, tracker.FlagCostUp, tracker.Clear},
		{"MIG 1g.10gb: six of seven slices unused", func() (ledger.Action, sim.Change) { return mig(intent, nodeOf(intent), "1g.10gb") }, tracker.FlagCostUp, tracker.Firing},
	} {
		t.Run(c.name, func(t *testing.T) {
			la, ch := c.act()
			r := runTruth(t, []ledger.Action{la}, ch)
			id := tracker.ActionID(la.Lever, la.Key)
			ta := r.plan.Action(id)
			if ta == nil || ta.Status != tracker.Applied || !ta.AppliedAt.Equal(at) {
				t.Fatalf("%s: %+v, want applied at hour 96", id, ta)
			}
			// the truth: no node's price changed (a re-cut node is the same
			// instance), so nothing is realised on the bill
			for n, rate := range r.rates {
				base := strings.TrimSuffix(n, "-mig")
				if b, ok := r.before[base]; ok && math.Abs(b-rate) > 1e-9 {
					t.Errorf("%s: $%.4f/h, %s was $%.4f/h", n, rate, base, b)
				}
			}
			if x := r.realised(id); x.Status != tracker.Prerequisite {
				t.Errorf("%s realised %s (%s), want prerequisite: it saves nothing until nodes go", id, x.Status, x.Note)
			}
			f := r.flag(id, c.flag)
			if f.Status != c.want {
				t.Errorf("%s %s: %s (%s), want %s", id, c.flag, f.Status, f.Detail, c.want)
			}
			t.Logf("%s %s: %s — %s", id, c.flag, f.Status, f.Detail)
		})
	}
}

// Simulator ground truth for autoscaling: the A10G pool's node and its
// pods gone every night from hour 96 (the autoscaler following demand).
// The pool's scale-down is seen from the first night, and its realised
// saving — the node's $/h × the after window's night hours ÷ its hours ×
// 730 — lies within the stated range, to the cent (the pool has no other
// node; on a pool whose other nodes come and go, their change counts in
// the pool's saving too: docs/progress.md).
func TestRealisedAutoscalingRecoversTheSimulatedTruth(t *testing.T) {
	cfg := sim.DefaultConfig()
	at := cfg.Start.Add(DemoAppliedHour * time.Hour)
	const node, model = "batch-a10g-1", "A10G"
	r := runTruth(t, nil, sim.Change{Kind: sim.Autoscale, Node: node, At: at})
	var id string
	for _, a := range r.plan.Actions {
		if a.Kind == lever.KindScaleNodes && slices.ContainsFunc(a.Targets, func(tg tracker.Target) bool { return tg.Model == model }) {
			id = a.ID
		}
	}
	ta := r.plan.Action(id)
	// hour 96 is a midnight: the first night starts at once
	if ta == nil || ta.Status != tracker.Applied || !ta.AppliedAt.Equal(at) {
		t.Fatalf("the pool's scale-down %s: %s at %v (%s), want applied at hour 96", id, ta.Status, ta.AppliedAt, ta.Detection)
	}
	x := r.realised(id)
	if x.Status != tracker.Measured {
		t.Fatalf("%s: %s (%s)", id, x.Status, x.Note)
	}
	// the node's nights in the after window, as a share of its hours
	var nights float64
	for h := x.After.Start; h.Before(x.After.End); h = h.Add(time.Hour) {
		if h.UTC().Hour() < sim.NightHours {
			nights++
		}
	}
	truth := r.before[node] * nights / x.After.End.Sub(x.After.Start).Hours() * 730
	if x.LowUSDMonth > truth || x.HighUSDMonth < truth || truth <= 0 || math.Abs(x.RealisedUSDMonth-truth) > 0.01 {
		t.Errorf("%s realised %.2f [%.2f, %.2f], truth %.2f", id, x.RealisedUSDMonth, x.LowUSDMonth, x.HighUSDMonth, truth)
	}
	t.Logf("%s: predicted %.2f, realised %.2f [%.2f, %.2f], truth %.2f", id, x.PredictedUSDMonth, x.RealisedUSDMonth, x.LowUSDMonth, x.HighUSDMonth, truth)
}
