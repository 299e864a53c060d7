package rolling

import (
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// A pod an interval read saw running that the next interval no longer
// shows ended, by inference, when that interval did — but not after a
// later pod on its GPU unit started: the accumulated inventory must not
// give a unit two holders (found by the real-Prometheus tier: a CronJob's
// pods on one A100 "held at the same time").
func TestInferredEndStopsAtTheUnitsNextHolder(t *testing.T) {
	t0 := time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC)
	interval := func(start time.Duration, pods ...cluster.Pod) *cluster.Snapshot {
		return &cluster.Snapshot{Window: cluster.Window{Start: t0.Add(start), End: t0.Add(start + 10*time.Minute)},
			Nodes: []cluster.Node{{Name: "n1"}}, Pods: pods}
	}
	pod := func(name string, start time.Duration, units ...string) cluster.Pod {
		p := cluster.Pod{Namespace: "batch", Name: name, UID: name, Node: "n1", Start: t0.Add(start)}
		for _, u := range units {
			p.GPUs = append(p.GPUs, cluster.Holding{UnitID: u})
		}
		return p
	}
	a := NewSeen()
	a.Absorb(interval(0, pod("first", 0, "n1/gpu0"), pod("other", 0, "n1/gpu1")))
	a.Absorb(interval(10*time.Minute, pod("second", 4*time.Minute, "n1/gpu0"), pod("other", 0, "n1/gpu1")))
	// A later read lists "gone", ended before it, with a unit it assigned
	// (not measured): that unit is not the pod's.
	gone := pod("gone", 0, "n1/gpu2")
	gone.End = t0.Add(5 * time.Minute)
	a.Absorb(interval(0, gone))
	late := pod("gone", 0, "n1/gpu3")
	late.End = gone.End
	a.Absorb(interval(10*time.Minute, late, pod("second", 4*time.Minute, "n1/gpu0"), pod("other", 0, "n1/gpu1")))
	s := a.Inventory(t0.Add(20*time.Minute), time.Hour)
	ends := map[string]time.Time{}
	for _, p := range s.Pods {
		ends[p.Name] = p.End
		if p.Name == "gone" && (len(p.GPUs) != 1 || p.GPUs[0].UnitID != "n1/gpu2") {
			t.Errorf("gone holds %v, want only n1/gpu2 (the unit it was measured on)", p.GPUs)
		}
	}
	want := map[string]time.Time{"first": t0.Add(4 * time.Minute), "second": {}, "other": {}, "gone": t0.Add(5 * time.Minute)}
	for name, end := range want {
		if got := ends[name]; !got.Equal(end) {
			t.Errorf("%s ends at %v, want %v", name, got, end)
		}
	}
}

// The facts a Prometheus read could not get stay unknown in the
// inventory it builds and in the window's snapshot (issue 26.1): serve
// --inventory prometheus decides no rule resting on them.
func TestSeenKeepsUnknownFacts(t *testing.T) {
	t0 := time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC)
	a := NewSeen()
	unknown := []string{cluster.FactNodeAffinity, cluster.FactTolerations}
	a.Absorb(&cluster.Snapshot{Window: cluster.Window{Start: t0, End: t0.Add(10 * time.Minute)}, Unknown: unknown,
		Nodes: []cluster.Node{{Name: "n1"}}})
	s := a.Inventory(t0.Add(10*time.Minute), time.Hour)
	if len(s.Unknown) != 2 || s.Knows(cluster.FactTolerations) {
		t.Errorf("inventory unknown %q, want %q", s.Unknown, unknown)
	}
	if w := Attach(s, s.Window, nil); w.Knows(cluster.FactTolerations) {
		t.Errorf("the window's snapshot knows tolerations its inventory does not")
	}
}
