package packing

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reshaping is a problem with a right-sized shape, so Solve packs three
// times.
func reshaping() *Problem {
	p := &Problem{Nodes: []Node{gpuNode("nb-1", "nc24", "A100-80GB", 1, 3.67), gpuNode("big", "p4de", "A100-80GB", 6, 20)}}
	nb := whole("nb/playground", "nb-1", 1)
	nb.Current, nb.Demand = nb.Demand, Demand{Kind: TimeSlice, Replicas: 2, Class: DevClass}
	p.Workloads = []Workload{nb, whole("big/a", "big", 1), mig("serve/x", "big", "3g.40gb")}
	return p
}

// Solving reports each packing it runs, and the plan does not depend on
// whether anyone listens.
func TestSolveReportsPackings(t *testing.T) {
	p := reshaping()
	var got [][2]int64
	plan, err := SolveReporting(p, func(phase string, done, total int64) {
		if phase != "planning" {
			t.Errorf("phase %q", phase)
		}
		got = append(got, [2]int64{done, total})
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][2]int64{{0, 3}, {1, 3}, {2, 3}, {3, 3}}, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	silent, err := Solve(reshaping())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(silent)
	b, _ := json.Marshal(plan)
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("the plan changed with progress (-silent +reporting):\n%s", diff)
	}
}

func TestSolveWithoutReshapingIsOnePacking(t *testing.T) {
	p := &Problem{Nodes: []Node{gpuNode("a", "p", "L4", 1, 1)}, Workloads: []Workload{whole("w", "a", 1)}}
	var got [][2]int64
	if _, err := SolveReporting(p, func(_ string, done, total int64) { got = append(got, [2]int64{done, total}) }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][2]int64{{0, 1}, {1, 1}}, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}
