package ledger

import (
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// TestCheaperModelAbsentFallsBackToMIG (issue 27): pool H alone, on AWS —
// two inference pods, each on its own H100 at 5% activity and 16 GiB.
// Right-sizing picks a cheaper GPU model (an L4, in the catalog) that no
// node of the cluster has; the planner cannot place it, so the ledger
// used to keep the pods whole and save nothing. It takes the in-cluster
// alternative right-sizing lists — 2g.20gb MIG slices on the H100s —, both
// fit one GPU, and one H100 node ($2,920.00) goes; the cheaper model is
// listed as not counted, with the pool it needs.
func TestCheaperModelAbsentFallsBackToMIG(t *testing.T) {
	t.Parallel()
	var nodes []cluster.Node
	for _, n := range []string{"h1", "h2"} {
		nd := node(n, h100x1, 1, "H100-80GB", 8, 64)
		nd.Cloud, nd.Region = "aws", "us-east-1"
		nodes = append(nodes, nd)
	}
	pods := []cluster.Pod{pod("inference", "h-0", "h1", 0, 0.05, 16384, 1000, 8, -1, 0), pod("inference", "h-1", "h2", 0, 0.05, 16384, 1000, 8, -1, 0)}
	s := prepareTest(t, &cluster.Snapshot{Window: clustertest.Window(weekHours), Source: "fixture", Nodes: nodes, Pods: pods})
	recs, err := rightsize.Recommend(s, rightsize.DefaultPolicy(), testPrices())
	if err != nil {
		t.Fatal(err)
	}
	cheaper := 0
	for _, r := range recs.GPU {
		if r.Action == rightsize.CheaperModel && r.TargetModel == "L4" {
			cheaper++
		}
	}
	if cheaper != 2 {
		t.Fatalf("right-sizing: %+v; want both pods on a cheaper L4 (the case under test)", recs.GPU)
	}
	l := build(t, s, options(LeverShape, LeverConsolidate))
	if want := CentsOf(4 * HoursPerMonth); l.Saving() != want {
		t.Errorf("saves %s, want %s (one H100 node, the pods on MIG slices)", l.Saving(), want)
	}
	mig, nc := 0, 0
	for _, a := range l.Actions {
		if a.Kind == lever.KindMIG {
			mig += len(a.Items)
		}
	}
	for _, n := range l.NotCounted {
		if n.Lever == LeverShape && strings.Contains(n.Reason, "L4") && strings.Contains(n.Reason, "no L4 node") {
			nc++
		}
	}
	if mig != 2 || nc != 2 {
		t.Errorf("%d workloads moved to MIG, %d cheaper-model options not counted; want 2 and 2: %+v / %+v", mig, nc, l.Actions, l.NotCounted)
	}
}
