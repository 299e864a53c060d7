package quota

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// flatPrices prices every GPU at $2/h, except instance type "unknown".
type flatPrices struct{}

func (flatPrices) Price(n pricing.NodeSpec) (pricing.NodePrice, error) {
	if n.InstanceType == "unknown" {
		return pricing.NodePrice{}, fmt.Errorf("no price for %s", n.InstanceType)
	}
	return pricing.NodePrice{NodeUSDPerHour: 2 * float64(n.GPUCount), GPUUSDPerHour: 2}, nil
}

// holder is a pod holding the given units from hour a to hour b (b < 0:
// running at the window's end).
func holder(ns, name string, a, b float64, units ...string) cluster.Pod {
	pb := clustertest.Pod(ns, name).On(strings.SplitN(units[0], "/", 2)[0])
	for _, u := range units {
		pb.Holds(u, 0.5, (b-a)*3600)
	}
	end := time.Time{}
	if b >= 0 {
		end = clustertest.At(b)
	}
	return pb.Life(clustertest.At(a), end).Obj()
}

func size(t *testing.T, s *cluster.Snapshot, o Options) *Result {
	t.Helper()
	p := clustertest.Prepare(t, s)
	a, err := cost.Allocate(p, flatPrices{}, cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Size(p, a, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSizeTakesTheTimeWeightedPercentile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		burstEnd  float64 // the burst pod holds 2 more GPUs from 0 to this hour
		wantP     float64
		wantHard  int64
		wantNotes int
	}{
		{"burst 10% of the window: p95 is the burst", 10, 4, 5, 0},
		{"burst 4% of the window: p95 is the base, the peak is noted", 4, 2, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &cluster.Snapshot{Window: clustertest.Window(100),
				Nodes: []cluster.Node{clustertest.Node("g1").GPUs(4, "H100-80GB").Obj()},
				Pods: []cluster.Pod{holder("ml", "base", 0, -1, "g1/gpu0", "g1/gpu1"),
					holder("ml", "burst", 0, tc.burstEnd, "g1/gpu2", "g1/gpu3")}}
			r := size(t, s, DefaultOptions(nil))
			if len(r.Namespaces) != 1 || len(r.Namespaces[0].Resources) != 1 {
				t.Fatalf("quotas %+v", r.Namespaces)
			}
			q := r.Namespaces[0].Resources[0]
			if q.Name != "nvidia.com/gpu" || q.Percentile != tc.wantP || q.Hard != tc.wantHard || q.Peak != 4 || len(r.Notes) != tc.wantNotes {
				t.Errorf("quota %+v, notes %v; want p95 %v, hard %d, peak 4, %d notes", q, r.Notes, tc.wantP, tc.wantHard, tc.wantNotes)
			}
			if want := 200 + 2*tc.burstEnd; math.Abs(q.UnitHours-want) > 1e-9 {
				t.Errorf("unit-hours %v, want %v", q.UnitHours, want)
			}
		})
	}
}

// The $ a quota caps comes from the cost allocation: the namespace's mean
// $ per unit-hour times the unit-hours it held is exactly what the cost
// report charged it for GPUs.
func TestCapIsPricedFromTheCostAllocation(t *testing.T) {
	t.Parallel()
	s := &cluster.Snapshot{Window: clustertest.Window(100),
		Nodes: []cluster.Node{clustertest.Node("g1").GPUs(4, "H100-80GB").Obj(),
			clustertest.Node("m1").MIG("A100-80GB", "3g.40gb", "1g.10gb", "1g.10gb").Obj(),
			clustertest.Node("x1").Instance("unknown", cluster.OnDemand).GPUs(2, "L4").Obj()},
		Pods: []cluster.Pod{holder("ml", "train", 0, 50, "g1/gpu0", "g1/gpu1"),
			holder("ml", "serve", 20, -1, "g1/gpu2"),
			holder("lab", "onprem", 0, -1, "x1/gpu0"),
			holder("kube-system", "agent", 0, -1, "g1/gpu3")}}
	mig := clustertest.Pod("ml", "small").On("m1").Holds("m1/gpu0/1g.10gb-1", 0.2, 100*3600).Life(clustertest.At(0), time.Time{}).Obj()
	mig.Containers[0].GPURequests = map[string]int64{"nvidia.com/mig-1g.10gb": 1}
	s.Pods = append(s.Pods, mig)
	p := clustertest.Prepare(t, s)
	a, err := cost.Allocate(p, flatPrices{}, cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Size(p, a, DefaultOptions([]string{"kube-system"}))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := cost.NewReport(a, cost.DefaultReportOptions())
	if err != nil {
		t.Fatal(err)
	}
	charged := map[string]float64{}
	for _, row := range rep.Rows {
		charged[row.Key] = row.GPUCost.Allocated()
	}
	got := map[string]string{}
	var mlUSD float64
	for _, ns := range r.Namespaces {
		for _, q := range ns.Resources {
			got[ns.Namespace+" "+q.Name] = fmt.Sprintf("hard %d, rate %s", q.Hard, usdText(q.USDPerUnitHour))
			if q.USDPerUnitHour != nil {
				if ns.Namespace == "ml" {
					mlUSD += *q.USDPerUnitHour * q.UnitHours
				}
				if want := float64(q.Hard) * *q.USDPerUnitHour * pricing.HoursPerMonth; math.Abs(*q.MonthlyCapUSD-want) > 1e-9 {
					t.Errorf("%s %s: cap %v, want %v", ns.Namespace, q.Name, *q.MonthlyCapUSD, want)
				}
			} else if q.MonthlyCapUSD != nil {
				t.Errorf("%s %s: a cap without a price", ns.Namespace, q.Name)
			}
		}
	}
	want := map[string]string{
		"lab nvidia.com/gpu":        "hard 2, rate unpriced",
		"ml nvidia.com/gpu":         "hard 4, rate 2.0000",
		"ml nvidia.com/mig-1g.10gb": "hard 2, rate 0.2857",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("quotas (-want +got):\n%s", diff)
	}
	if math.Abs(mlUSD-charged["ml"]) > 1e-6 {
		t.Errorf("ml: quota rates × unit-hours = $%.6f, the cost report charged $%.6f", mlUSD, charged["ml"])
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "lab: nvidia.com/gpu is not priced") {
		t.Errorf("notes %v: want the unpriced quota named", r.Notes)
	}
}

func usdText(v *float64) string {
	if v == nil {
		return "unpriced"
	}
	return fmt.Sprintf("%.4f", *v)
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	err := Options{Percentile: 0, Headroom: -1}.Validate()
	if err == nil || !strings.Contains(err.Error(), "percentile: 0") || !strings.Contains(err.Error(), "headroom: -1") {
		t.Errorf("err %v, want both options named", err)
	}
	if err := DefaultOptions(nil).Validate(); err != nil {
		t.Error(err)
	}
}

// TestReplacementInTheSameSecondDoesNotOverlap: a pod holding 2 GPUs ends
// 0.4 s after hour 50 and its replacement starts at hour 50 — the same
// second, as Kubernetes stamps it; on other GPUs — beside a base pod holding 2 all week:
// 4 GPUs at most at any time, never 6, so no note says the quota was
// exceeded.
func TestReplacementInTheSameSecondDoesNotOverlap(t *testing.T) {
	t.Parallel()
	old := holder("ml", "old", 0, 50, "g1/gpu2", "g1/gpu3")
	old.End = clustertest.At(50).Add(400 * time.Millisecond)
	s := &cluster.Snapshot{Window: clustertest.Window(100),
		Nodes: []cluster.Node{clustertest.Node("g1").GPUs(6, "H100-80GB").Obj()},
		Pods: []cluster.Pod{holder("ml", "base", 0, -1, "g1/gpu0", "g1/gpu1"), old,
			holder("ml", "new", 50, -1, "g1/gpu4", "g1/gpu5")}}
	r := size(t, s, DefaultOptions(nil))
	if len(r.Namespaces) != 1 || len(r.Namespaces[0].Resources) != 1 {
		t.Fatalf("quotas %+v", r.Namespaces)
	}
	q := r.Namespaces[0].Resources[0]
	if q.Peak != 4 || len(r.Notes) != 0 {
		t.Errorf("peak %d, notes %v: want 4 and no over-quota note", q.Peak, r.Notes)
	}
}
