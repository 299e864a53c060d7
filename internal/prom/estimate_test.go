package prom

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
)

// TestCutEstimatedLives (issue 31 H1): an estimated end (no
// kube_pod_completion_time: one info step after the last sighting) that
// overlaps the next measured holder of the same GPU unit ends at that
// holder's start, and an estimated start (no kube_pod_start_time) that
// overlaps the previous holder starts at its end; two estimates meet
// half-way; measured lives, pods on other units and lives that do not
// overlap are left alone. Before the cut, attachMeasured dropped the
// later holding as a conflict and the pod held nothing.
func TestCutEstimatedLives(t *testing.T) {
	t.Parallel()
	at := func(h, m int) time.Time { return time.Date(2026, 11, 1, h, m, 0, 0, time.UTC) }
	node := &cluster.Node{Name: "n1"}
	ix := unitIndex{units: map[string]cluster.UnitRef{"n1/gpu0": {Node: node}, "n1/gpu1": {Node: node}}}
	pods := map[string]*podFacts{}
	byPod := map[string][]holdKey{}
	add := func(name, unit string, start, end time.Time, startEst, endEst bool) *podFacts {
		p := &podFacts{pod: cluster.Pod{Namespace: "ml", Name: name, Node: "n1", Start: start, End: end}, startEst: startEst, endEst: endEst}
		p.key = p.pod.Key()
		pods[name] = p
		byPod[p.key] = append(byPod[p.key], holdKey{pod: p.key, unit: unit})
		return p
	}
	// gpu0: a (end estimated, 2 h late) then b (measured start at 10:20).
	a := add("a", "n1/gpu0", at(8, 0), at(11, 0), false, true)
	b := add("b", "n1/gpu0", at(10, 20), at(12, 5), false, false)
	// gpu0 again: c (start estimated, before b's measured end).
	c := add("c", "n1/gpu0", at(11, 0), at(14, 0), true, false)
	// gpu1: d and e both estimated, overlapping 13:00–14:00; f measured
	// and apart from them.
	d := add("d", "n1/gpu1", at(9, 0), at(14, 0), false, true)
	e := add("e", "n1/gpu1", at(13, 0), time.Time{}, true, false)
	// gpu1 before d: g and h both measured and overlapping: a conflict
	// attachMeasured counts, not an estimate to cut.
	g := add("g", "n1/gpu1", at(1, 0), at(3, 0), false, false)
	h := add("h", "n1/gpu1", at(2, 0), at(4, 0), false, false)
	list := []*podFacts{a, b, c, d, e, g, h}
	if n := cutEstimated(list, byPod, ix); n != 4 {
		t.Errorf("cut %d lives, want 4 (a, c, d, e)", n)
	}
	for _, w := range []struct {
		p          *podFacts
		start, end time.Time
	}{
		{a, at(8, 0), at(10, 20)},    // at b's measured start
		{b, at(10, 20), at(12, 5)},   // measured: unchanged
		{c, at(12, 5), at(14, 0)},    // at b's measured end
		{d, at(9, 0), at(13, 30)},    // half-way
		{e, at(13, 30), time.Time{}}, // half-way, still running
		{g, at(1, 0), at(3, 0)},      // measured: unchanged
		{h, at(2, 0), at(4, 0)},      // measured: unchanged
	} {
		if !w.p.pod.Start.Equal(w.start) || !w.p.pod.End.Equal(w.end) {
			t.Errorf("%s lives %s – %s, want %s – %s", w.p.pod.Name, w.p.pod.Start.Format("15:04"), w.p.pod.End.Format("15:04"),
				w.start.Format("15:04"), w.end.Format("15:04"))
		}
	}
	// With every life measured nothing is cut.
	m := &podFacts{pod: cluster.Pod{Namespace: "ml", Name: "m", Node: "n1", Start: at(1, 0), End: at(2, 0)}}
	m.key = m.pod.Key()
	if n := cutEstimated([]*podFacts{g, h, m}, byPod, ix); n != 0 {
		t.Errorf("measured lives only: cut %d", n)
	}
}

// TestEstimatedLivesKeepHoldings (issue 31 H1) reads the simulated days
// without kube_pod_start_time, then without kube_pod_completion_time: every
// GPU pod keeps the holdings the simulator gave it (no DCGM holding is
// left out as a conflict), its estimated life contains its real one
// within a scrape interval (an estimate never shrinks the GPU-hours the
// ledger rests on) and is at most two info steps longer, and a note names
// the estimate.
func TestEstimatedLivesKeepHoldings(t *testing.T) {
	t.Parallel()
	h, err := simulated()
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string]cluster.Pod{}
	for _, p := range h.truth.Pods {
		truth[p.Key()] = p
	}
	for _, c := range []struct{ drop, note string }{
		{"kube_pod_start_time", "estimated pod life/lives"},
		{"kube_pod_completion_time", "no kube_pod_completion_time series in the window: the ends of"},
	} {
		t.Run(c.drop, func(t *testing.T) {
			t.Parallel()
			srv := promtest.New(t, h.series)
			srv.Edit(dropPrefix(c.drop))
			opts := testOptions(srv.URL, ReadRemote)
			opts.Window = h.truth.Window
			s, err := Build(context.Background(), opts)
			var pe *PartialError
			if err != nil && !errors.As(err, &pe) {
				t.Fatal(err)
			}
			notes := strings.Join(s.Notes, "\n")
			if strings.Contains(notes, "overlap another pod's") {
				t.Errorf("holdings left out as conflicts: %s", notes)
			}
			if !strings.Contains(notes, c.note) {
				t.Errorf("notes %q: want %q", notes, c.note)
			}
			const slack = time.Minute // a scrape interval: kube_pod_info's first sample after the start
			gpuPods := 0
			for _, p := range s.Pods {
				tp, ok := truth[p.Key()]
				if !ok || len(tp.GPUs) == 0 {
					continue
				}
				gpuPods++
				if len(p.GPUs) != len(tp.GPUs) {
					t.Errorf("%s holds %d unit(s), the simulator %d", p.Key(), len(p.GPUs), len(tp.GPUs))
				}
				from, to, _ := s.Window.Interval(p.Start, p.End)
				tfrom, tto, _ := s.Window.Interval(tp.Start, tp.End)
				if from.After(tfrom.Add(slack)) || to.Before(tto.Add(-slack)) {
					t.Errorf("%s lives %s – %s in the window, really %s – %s: an estimate shorter than the life", p.Key(), from, to, tfrom, tto)
				}
				if tfrom.Sub(from) > 2*opts.InfoStep || to.Sub(tto) > 2*opts.InfoStep {
					t.Errorf("%s lives %s – %s in the window, really %s – %s: more than two info steps longer", p.Key(), from, to, tfrom, tto)
				}
			}
			if gpuPods == 0 {
				t.Fatal("no GPU pods: the test checks nothing")
			}
		})
	}
}
