package tracker

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/ledger/ledgertest"
)

func build(t *testing.T, s *cluster.Prepared) *ledger.Ledger {
	t.Helper()
	o := ledger.DefaultOptions()
	o.Levers = []string{"rightsize", "shape", "consolidate"}
	l, err := ledger.Build(ledger.Input{Snapshot: s, Prices: ledgertest.Prices()}, o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func observe(t *testing.T, p *Plan, s *cluster.Prepared, l *ledger.Ledger) {
	t.Helper()
	if err := p.Observe(Observation{Window: s.Window(), Snapshot: s.View(), Ledger: l, Figures: Figures{SpendUSD: 1}}); err != nil {
		t.Fatal(err)
	}
}

func byKey(p *Plan, key string) *Action {
	for _, a := range p.Actions {
		if a.Key == key {
			return a
		}
	}
	return nil
}

const (
	removeA = "consolidate:remove-nodes:test.a100x4/on-demand/A100-80GB"
	removeL = "consolidate:remove-nodes:test.l4x2/on-demand/L4"
	resize  = "rightsize:resize"
	mig     = "shape:mig"
	repackL = "consolidate:repack:rightsize"
)

// The ids come from lever + key: the same whatever the ledger's order
// and positional ids, and kept by an action proposed again.
func TestIDsAreStable(t *testing.T) {
	s := ledgertest.Fixture(t)
	l := build(t, s)
	p := New("c")
	observe(t, p, s, l)
	want := len(l.Actions)
	for _, f := range l.Foundations {
		if slices.Contains([]string{KindTaint, KindAdmission, KindVPAOff, KindDCGM}, f.Kind) && !f.Done {
			want++ // the groundwork, tracked beside the actions
		}
	}
	if p.Baseline == nil || len(p.Baseline.Actions) != want || want != len(p.Actions) || p.Baseline.LedgerSavingUSDMonth != l.SavingUSDMonth {
		t.Fatalf("baseline %+v, want the ledger's %d actions and groundwork and saving %.2f", p.Baseline, want, l.SavingUSDMonth)
	}
	ids := map[string]string{}
	for _, a := range p.Actions {
		if a.ID != ActionID(a.Lever, a.Key) || !strings.HasPrefix(a.ID, a.Lever+"-") {
			t.Errorf("%s: id %s, want %s", a.Key, a.ID, ActionID(a.Lever, a.Key))
		}
		ids[a.Key] = a.ID
	}
	// the next window, its actions in reverse order under other positional ids
	r := *l
	r.Actions = slices.Clone(l.Actions)
	slices.Reverse(r.Actions)
	for i := range r.Actions {
		r.Actions[i].ID = "Z" + r.Actions[i].ID
	}
	later := *s.View()
	later.Window.End = later.Window.End.Add(time.Hour)
	baseline := *p.Baseline
	if err := p.Observe(Observation{Window: later.Window, Snapshot: &later, Ledger: &r}); err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != len(ids) || p.Observations != 2 {
		t.Fatalf("%d actions after 2 observations (%d), want %d", len(p.Actions), p.Observations, len(ids))
	}
	for _, a := range p.Actions {
		if ids[a.Key] != a.ID || !a.Proposed || a.Retired != "" {
			t.Errorf("%s: id %s proposed %v retired %q, want %s still proposed", a.Key, a.ID, a.Proposed, a.Retired, ids[a.Key])
		}
	}
	if p.Baseline.At != baseline.At || p.Baseline.SpendUSD != 1 {
		t.Errorf("baseline moved: %+v, was %+v", p.Baseline, baseline)
	}
	// a window that ends before the last one is refused
	if err := p.Observe(Observation{Window: s.Window(), Snapshot: s.View(), Ledger: l}); err == nil || !strings.Contains(err.Error(), "only moves forward") {
		t.Errorf("an earlier window: %v, want refused", err)
	}
}

// applied is the fixture a day later with some of the plan done: a2 gone
// (its pods on a1), two of the four batch workloads right-sized, both
// inference workloads on MIG slices of h1; l4 and h2 still run.
func applied(t *testing.T, days int) *cluster.Prepared {
	t.Helper()
	base := ledgertest.Fixture(t).View()
	s := *base
	s.Window = cluster.Window{Start: base.Window.Start.Add(time.Duration(days) * 24 * time.Hour), End: base.Window.End.Add(time.Duration(days) * 24 * time.Hour)}
	change := s.Window.Start.Add(2 * time.Hour)
	s.Nodes = slices.Clone(base.Nodes)
	for i := range s.Nodes {
		switch s.Nodes[i].Name {
		case "a2":
			s.Nodes[i].Deleted = change
		case "h1":
			mig := clustertest.Node("h1").MIG("H100-80GB", "1g.10gb", "1g.10gb").Obj()
			s.Nodes[i].GPUs, s.Nodes[i].MIGStrategy = mig.GPUs, "mixed"
		}
	}
	s.Pods = nil
	for _, p := range base.Pods {
		p.Containers = slices.Clone(p.Containers)
		p.GPUs = slices.Clone(p.GPUs)
		switch p.Name {
		case "a-2", "a-3":
			old := p
			old.End = change
			s.Pods = append(s.Pods, old)
			p.GPUs = slices.Clone(p.GPUs)
			p.Name, p.Node, p.Start = p.Name+"-moved", "a1", change
			p.GPUs[0].UnitID = map[string]string{"a-2": "a1/gpu2", "a-3": "a1/gpu3"}[old.Name]
		case "l-0", "l-1":
			p.Containers[0].CPURequestMilli, p.Containers[0].MemoryRequest = 500, int64(24*(1<<30)/10)
			p.Start = change
		case "h-0", "h-1":
			p.Node, p.Start = "h1", change
			p.GPUs[0].UnitID = map[string]string{"h-0": "h1/gpu0/1g.10gb-0", "h-1": "h1/gpu0/1g.10gb-1"}[p.Name]
			p.Containers[0].GPURequests = map[string]int64{"nvidia.com/mig-1g.10gb": 1}
		}
		s.Pods = append(s.Pods, p)
	}
	return clustertest.Prepare(t, &s)
}

func TestDetectsWhatTheClusterShows(t *testing.T) {
	s := ledgertest.Fixture(t)
	p := New("c")
	l := build(t, s)
	observe(t, p, s, l)
	for _, a := range p.Actions {
		if a.Status != Pending || a.Detected != 0 {
			t.Errorf("%s at the baseline: %s %d/%d, want pending", a.Key, a.Status, a.Detected, a.Of)
		}
	}
	after := applied(t, 1)
	observe(t, p, after, l) // the same plan, a day later
	change := after.Window().Start.Add(2 * time.Hour)
	want := map[string]struct {
		status    Status
		done, of  int
		appliedAt time.Time
	}{
		removeA: {Applied, 1, 1, change},
		removeL: {Pending, 0, 1, time.Time{}},
		resize:  {Partly, 2, 4, change},
		mig:     {Applied, 2, 2, change},
		repackL: {Pending, 0, 1, time.Time{}},
	}
	for key, w := range want {
		a := byKey(p, key)
		if a == nil {
			t.Fatalf("%s not tracked", key)
		}
		if a.Status != w.status || a.Detected != w.done || a.Of != w.of || !a.AppliedAt.Equal(w.appliedAt) {
			t.Errorf("%s: %s %d of %d at %v (%s), want %s %d of %d at %v", key, a.Status, a.Detected, a.Of, a.AppliedAt, a.Detection, w.status, w.done, w.of, w.appliedAt)
		}
	}
	if d := byKey(p, resize).Detection; d != "2 of 4 workloads show it" {
		t.Errorf("resize detection %q", d)
	}

	// the ledger on the changed cluster no longer proposes the done work
	observe(t, p, applied(t, 2), build(t, applied(t, 2)))
	a := byKey(p, removeA)
	if a.Proposed || a.Retired != Done || !strings.Contains(a.RetiredWhy, "applied") {
		t.Errorf("removed a2: proposed %v retired %q (%s), want done", a.Proposed, a.Retired, a.RetiredWhy)
	}
	if m := byKey(p, mig); m.Proposed || m.Retired != Done {
		t.Errorf("MIG: proposed %v retired %q, want done", m.Proposed, m.Retired)
	}
	for _, a := range p.Actions {
		if a.Proposed && a.Retired != "" {
			t.Errorf("%s proposed and retired %q", a.Key, a.Retired)
		}
		if !a.Proposed && a.Retired == "" {
			t.Errorf("%s gone without a reason", a.Key)
		}
	}
}

func TestSupersededAndObsolete(t *testing.T) {
	s := ledgertest.Fixture(t)
	l := build(t, s)
	p := New("c")
	observe(t, p, s, l)
	// the next ledger removes l2 itself: the repack that named it is superseded
	next := *l
	next.Actions = nil
	for _, a := range l.Actions {
		switch a.Key {
		case repackL:
			a.Key = "consolidate:remove-nodes:other-pool"
			next.Actions = append(next.Actions, a)
		case removeL: // dropped, nothing covers l4: obsolete
		default:
			next.Actions = append(next.Actions, a)
		}
	}
	later := *s.View()
	later.Window.End = later.Window.End.Add(time.Hour)
	if err := p.Observe(Observation{Window: later.Window, Snapshot: &later, Ledger: &next}); err != nil {
		t.Fatal(err)
	}
	if a := byKey(p, repackL); a.Retired != Superseded || !strings.Contains(a.RetiredWhy, ActionID("consolidate", "consolidate:remove-nodes:other-pool")) {
		t.Errorf("repack: %q %q, want superseded by the new removal", a.Retired, a.RetiredWhy)
	}
	if a := byKey(p, removeL); a.Retired != Obsolete {
		t.Errorf("l4's removal: %q, want obsolete", a.Retired)
	}
}

func TestMarks(t *testing.T) {
	s := ledgertest.Fixture(t)
	p := New("c")
	observe(t, p, s, build(t, s))
	id := byKey(p, removeL).ID
	at := s.Window().End.Add(time.Hour)
	if err := p.SetMark(id, &Mark{Status: Rejected, At: at, Note: "keep l4 for the quarter-end batch"}); err != nil {
		t.Fatal(err)
	}
	if a := p.Action(id); a.Status != Rejected {
		t.Errorf("rejected mark: %s", a.Status)
	}
	if err := p.SetMark(id, &Mark{Status: Applied, At: at}); err != nil {
		t.Fatal(err)
	}
	if a := p.Action(id); a.Status != Applied || !a.AppliedAt.Equal(at) {
		t.Errorf("applied mark: %s at %v", a.Status, a.AppliedAt)
	}
	if err := p.SetMark(id, nil); err != nil || p.Action(id).Status != Pending || !p.Action(id).AppliedAt.IsZero() {
		t.Errorf("cleared mark: %v %s", err, p.Action(id).Status)
	}
	if err := p.SetMark("nope-123456", &Mark{Status: Applied}); err == nil || !strings.Contains(err.Error(), `"nope-123456"`) {
		t.Errorf("unknown id: %v", err)
	}
	if err := p.SetMark(id, &Mark{Status: "done"}); err == nil || !strings.Contains(err.Error(), "applied or rejected") {
		t.Errorf("bad status: %v", err)
	}
	c := p.Count()
	if c.Pending != len(p.Actions) {
		t.Errorf("counts %+v", c)
	}
}

// A plan written as JSON reads back the same (the history keeps it so).
func TestPlanRoundTrips(t *testing.T) {
	s := ledgertest.Fixture(t)
	p := New("c")
	l := build(t, s)
	observe(t, p, s, l)
	observe(t, p, applied(t, 1), l)
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q Plan
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&q)
	if string(b) != string(b2) {
		t.Errorf("round trip changed the plan:\n%s\n%s", b, b2)
	}
}

// The taint groundwork is tracked beside the actions: the GPU nodes
// without the taint when it was proposed, counted as they get it.
func TestTaintGroundwork(t *testing.T) {
	s := ledgertest.Fixture(t)
	l := build(t, s)
	l.Foundations = []ledger.Foundation{{ID: "F1", Kind: "taint", Title: "Taint GPU nodes", Targets: 8}}
	p := New("c")
	observe(t, p, s, l)
	a := byKey(p, "groundwork:taint")
	if a == nil || a.Of != 8 || a.Status != Pending || a.ID != ActionID(Groundwork, "groundwork:taint") {
		t.Fatalf("taint groundwork: %+v", a)
	}
	later := *s.View()
	later.Window.End = later.Window.End.Add(time.Hour)
	later.Nodes = slices.Clone(s.Nodes())
	for i := range later.Nodes[:3] {
		later.Nodes[i].Taints = []cluster.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}}
	}
	if err := p.Observe(Observation{Window: later.Window, Snapshot: &later, Ledger: l}); err != nil {
		t.Fatal(err)
	}
	if a.Status != Partly || a.Detected != 3 || a.Of != 8 {
		t.Errorf("3 nodes tainted: %s %d of %d (%s)", a.Status, a.Detected, a.Of, a.Detection)
	}
	found := false
	for _, x := range p.Realise(nil).Actions {
		if x.ID == a.ID {
			found = true
			if x.Status != Prerequisite {
				t.Errorf("the taint realises %s, want prerequisite (groundwork saves nothing itself)", x.Status)
			}
		}
	}
	if !found {
		t.Error("the taint is not in the proof")
	}
}
