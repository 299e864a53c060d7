package rightsize

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// countingPrices counts the catalog look-ups an engine makes.
type countingPrices struct {
	*pricing.Catalog
	offers, prices int
}

func (c *countingPrices) Offers(cloud, region string) []pricing.Entry {
	c.offers++
	return c.Catalog.Offers(cloud, region)
}

func (c *countingPrices) Price(n pricing.NodeSpec) (pricing.NodePrice, error) {
	c.prices++
	return c.Catalog.Price(n)
}

// TestOfferMemoGivesTheSameResult: remembering the catalog rows per
// region and their prices per capacity type changes no recommendation,
// and looks each up fewer times: on the simulated cluster, and on one
// region with the same workload on on-demand and on spot nodes (the
// cheaper model is priced per capacity type).
func TestOfferMemoGivesTheSameResult(t *testing.T) {
	t.Parallel()
	spot := clustertest.Node("s").Resources(96, 1152).Instance("p4de.24xlarge", cluster.Spot).GPUs(8, "A100-80GB").Obj()
	for name, s := range map[string]*cluster.Prepared{
		"simulated": simulated(t),
		"on-demand and spot": snapshot(t, []cluster.Node{a100Node("a"), spot},
			gpuPod("inference", "on-demand", "a", 0.22, 8*1024, "a/gpu0"), gpuPod("inference", "spot", "s", 0.22, 8*1024, "s/gpu0")),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			memo, plain := &countingPrices{Catalog: pricing.Embedded()}, &countingPrices{Catalog: pricing.Embedded()}
			got := newEngine(s, DefaultPolicy(), memo).recommend()
			e := newEngine(s, DefaultPolicy(), plain)
			e.offerMemo, e.priceMemo = nil, nil
			want := e.recommend()
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("memoised offers change the result (-plain +memo):\n%s", d)
			}
			if n := countAction(got, CheaperModel); n < 2 {
				t.Fatalf("%d cheaper-model recommendations: the test does not exercise the memo", n)
			}
			if memo.offers >= plain.offers || memo.prices > plain.prices {
				t.Errorf("memo looked up offers %d times (plain %d), prices %d times (plain %d): want fewer offers, no more prices",
					memo.offers, plain.offers, memo.prices, plain.prices)
			}
		})
	}
}

// simulated is the simulated cluster at 192 GPUs over two days.
func simulated(t *testing.T) *cluster.Prepared {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.Window, cfg.Step, cfg.Scale = 2*24*time.Hour, 15*time.Minute, 2
	snap, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cluster.Prepare(snap)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func countAction(r *Result, a GPUAction) int {
	n := 0
	for _, g := range r.GPU {
		if g.Action == a {
			n++
		}
		for _, alt := range g.Alternatives {
			if alt.Action == a {
				n++
			}
		}
	}
	return n
}
