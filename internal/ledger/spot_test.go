package ledger

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// spotPrices is testPrices with a spot price of $4/h for the A100 node.
func spotPrices() *pricing.Catalog {
	e := pricing.Entry{Cloud: "aws", Region: "us-east-1", InstanceType: a100x4, GPUModel: "A100-80GB", GPUCount: 4,
		VCPUs: 32, MemoryGiB: 256, OnDemandUSDPerHour: 10, SpotUSDPerHour: 4, OnDemandAsOf: "2026-01-21", SpotAsOf: "2026-01-21", Source: "test"}
	return pricing.NewCatalog([]pricing.Entry{e})
}

// checkpointed: one on-demand A100 node ($10/h, $4/h on spot) whose four
// GPUs a Job holds all week; hint is its checkpoint interval (0: none),
// kind its owner kind, and spotNodes the number of spot nodes (of the same
// type, idle) reclaimed in the window.
func checkpointed(t *testing.T, hint time.Duration, kind string, reclaimed int) *cluster.Prepared {
	t.Helper()
	w := clustertest.Window(weekHours)
	nodes := []cluster.Node{node("a1", a100x4, 4, "A100-80GB", 32, 256)}
	for i := range reclaimed {
		n := clustertest.Node(fmt.Sprintf("s%d", i)).Resources(32, 256).Instance(a100x4, cluster.Spot).GPUs(4, "A100-80GB").
			Life(w.Start, w.Start.Add(time.Duration(i+1)*time.Hour)).Obj()
		n.EndReason = cluster.NodeSpotInterrupted
		nodes = append(nodes, n)
	}
	var pods []cluster.Pod
	for g := range 4 {
		p := clustertest.Pod("train", fmt.Sprintf("run-%d", g)).Owner(kind, "run").On("a1").Requests(1000, 8).
			Holds(fmt.Sprintf("a1/gpu%d", g), 0.9, weekHours*3600).Obj()
		p.CheckpointSeconds = int64(hint / time.Second)
		pods = append(pods, p)
	}
	return prepareTest(t, &cluster.Snapshot{Window: w, Source: "fixture", Nodes: nodes, Pods: pods})
}

// A checkpointed Job on on-demand: $10/h → $4/h over (1 − rework), rework
// = 10% a month ÷ 730 h × (30 min + 10 min restart): saves (10 − 4 ÷ (1 −
// rework)) × 730.
func TestSpotForCheckpointedTraining(t *testing.T) {
	t.Parallel()
	s := checkpointed(t, time.Hour, "Job", 0)
	l, err := Build(Input{Snapshot: s, Prices: spotPrices()}, options(LeverSpot))
	if err != nil {
		t.Fatal(err)
	}
	rework := capacity.GPUInterruptionsPerMonth / 730 * (0.5 + 10.0/60)
	want := CentsOf(10*HoursPerMonth) - CentsOf(4/(1-rework)*HoursPerMonth)
	if l.Saving() != want || len(l.Actions) != 1 || l.Actions[0].Kind != lever.KindSpot {
		t.Errorf("spot saves %s in %d action(s), want %s in one", l.Saving(), len(l.Actions), want)
	}
}

func TestSpotNotCounted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		s    func(t *testing.T) *cluster.Prepared
		want string
	}{
		{"no checkpoint hint", func(t *testing.T) *cluster.Prepared { return checkpointed(t, 0, "Job", 0) }, "no checkpoint hint"},
		{"4 spot interruptions in a week", func(t *testing.T) *cluster.Prepared { return checkpointed(t, time.Hour, "PyTorchJob", 4) }, "interrupted 67.2 times a week per node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, err := Build(Input{Snapshot: tc.s(t), Prices: spotPrices()}, options(LeverSpot))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, nc := range l.NotCounted {
				found = found || nc.Lever == LeverSpot && strings.Contains(nc.Reason, tc.want)
			}
			if l.Saving() != 0 || !found {
				t.Errorf("saves %s, not counted %+v; want $0 and %q", l.Saving(), l.NotCounted, tc.want)
			}
		})
	}
}

// A serving Deployment is never a spot candidate, and says nothing.
func TestSpotLeavesServingAlone(t *testing.T) {
	t.Parallel()
	l, err := Build(Input{Snapshot: checkpointed(t, time.Hour, "Deployment", 0), Prices: spotPrices()}, options(LeverSpot))
	if err != nil {
		t.Fatal(err)
	}
	if l.Saving() != 0 || len(l.Actions) != 0 {
		t.Errorf("spot on a serving node: saves %s with %d actions", l.Saving(), len(l.Actions))
	}
}

// TestSpotLimitIsPerNode: 40 spot nodes run all week and 4 of them are
// interrupted on its last day — 4 interruptions a week in the cluster,
// about 0.1 a node — so the candidate is counted; the same 4 over 4 spot
// nodes that lived an hour or so each are 67 a node and are not.
func TestSpotLimitIsPerNode(t *testing.T) {
	t.Parallel()
	s := checkpointed(t, time.Hour, "Job", 0)
	snap := *s.View()
	w := snap.Window
	snap.Nodes = append([]cluster.Node(nil), snap.Nodes...)
	for i := range 40 {
		end := time.Time{}
		if i < 4 {
			end = w.End.Add(-time.Duration(i+1) * time.Hour)
		}
		n := clustertest.Node(fmt.Sprintf("s%d", i)).Resources(32, 256).Instance(a100x4, cluster.Spot).GPUs(4, "A100-80GB").
			Life(w.Start, end).Obj()
		if i < 4 {
			n.EndReason = cluster.NodeSpotInterrupted
		}
		snap.Nodes = append(snap.Nodes, n)
	}
	l, err := Build(Input{Snapshot: prepareTest(t, &snap), Prices: spotPrices()}, options(LeverSpot))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Actions) != 1 || l.Actions[0].Kind != lever.KindSpot || l.Saving() <= 0 {
		t.Fatalf("spot: %d actions saving %s, not counted %+v: want the candidate counted", len(l.Actions), l.Saving(), l.NotCounted)
	}
	ev := map[string]float64{}
	for _, e := range l.Actions[0].Evidence {
		ev[e.Name] = e.Value
	}
	if ev["spot_interruptions_per_week"] != 4 || ev["spot_interruptions_per_node_week"] > 0.2 {
		t.Errorf("evidence %v: want 4 a week in the cluster and about 0.1 a node", ev)
	}
}

// billSpot prices spot from a bill's effective spot rate ($3/h, as
// billing.Pricer does for a what-if on spot) and on-demand from the
// catalog.
type billSpot struct{ *pricing.Catalog }

func (b billSpot) Price(s pricing.NodeSpec) (pricing.NodePrice, error) {
	p, err := b.Catalog.Price(s)
	if err != nil || s.Capacity != pricing.Spot {
		return p, err
	}
	p = pricing.Rescale(p, 3)
	p.Source, p.Origin, p.AsOf = "bill t.csv spot effective rate of "+a100x4, pricing.OriginBill, "2026-11-07"
	return p, nil
}

// With a bill's spot rate the lever prices spot from it ($3/h, not the
// catalog's $4/h) and its confidence names both dates compared.
func TestSpotFromBill(t *testing.T) {
	t.Parallel()
	l, err := Build(Input{Snapshot: checkpointed(t, time.Hour, "Job", 0), Prices: billSpot{spotPrices()}}, options(LeverSpot))
	if err != nil {
		t.Fatal(err)
	}
	rework := capacity.GPUInterruptionsPerMonth / 730 * (0.5 + 10.0/60)
	want := CentsOf(10*HoursPerMonth) - CentsOf(3/(1-rework)*HoursPerMonth)
	if l.Saving() != want || len(l.Actions) != 1 {
		t.Fatalf("spot from the bill saves %s in %d action(s), want %s", l.Saving(), len(l.Actions), want)
	}
	if r := l.Actions[0].ConfidenceReason; !strings.Contains(r, "the spot price (bill, charges up to 2026-11-07) with the nodes' price (catalog as of 2026-01-21)") {
		t.Errorf("confidence %q does not name the dates compared", r)
	}
}
