package cost

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// The report by mechanism: each row is the GPU-hours and dollars held
// through one allocation mechanism (a node's unheld capacity goes to its
// own), the rows add up to the totals, and every row names its
// mechanisms. Hand-computed at $2 per GPU-hour over 10 h.
func TestReportByMechanism(t *testing.T) {
	t.Parallel()
	s := &cluster.Snapshot{Window: ct.Window(10),
		Nodes: []cluster.Node{draShared("n1", 3), hamiNode("n2"), ct.Node("n3").GPUs(1, "A100-80GB").Obj()},
		Pods: []cluster.Pod{
			ct.Pod("ml", "s-a").On("n1").Holds("n1/gpu-0/share-0", 0.5, 10*hour).Obj(),
			ct.Pod("inf", "q").On("n2").Holds("n2/gpu0/ts-0", -1, 0).Obj(),
			ct.Pod("ml", "w").On("n3").Holds("n3/gpu0", 1, 10*hour).Obj(),
			ct.Pod("web", "cpu").On("n3").Obj(),
		}}
	r := report(t, s, func(o *settings) { o.By = "mechanism" })
	for _, tc := range []struct {
		key        string
		allocated  float64
		unalloc    float64
		mechanisms []string
	}{
		// 1/3 of the shared DRA GPU held, the other 2/3 unheld.
		{"dra", 10.0 / 3, 20.0 / 3, []string{"dra"}},
		// max(25%, 4096/24576) = 1/4 of the HAMi A10 held.
		{"hami", 2.5, 7.5, []string{"hami"}},
		{"device-plugin", 10, 0, []string{"device-plugin"}},
	} {
		got := row(t, r, tc.key)
		if math.Abs(got.GPUHours.Allocated-tc.allocated) > 1e-9 || math.Abs(got.GPUHours.Unallocated-tc.unalloc) > 1e-9 {
			t.Errorf("%s: %v allocated, %v unallocated GPU-hours; want %v, %v", tc.key, got.GPUHours.Allocated, got.GPUHours.Unallocated, tc.allocated, tc.unalloc)
		}
		if gpu := got.GPUCost.Total(); math.Abs(gpu-20) > 1e-9 {
			t.Errorf("%s: GPU $%v, want $20 (one GPU at $2 for 10 h)", tc.key, gpu)
		}
		if diff := cmp.Diff(tc.mechanisms, got.Mechanisms); diff != "" {
			t.Errorf("%s: mechanisms (-want +got):\n%s", tc.key, diff)
		}
	}
	if cpu := row(t, r, "(no GPU)"); cpu.GPUHours.Allocated != 0 || cpu.Mechanisms != nil || cpu.Pods != 1 {
		t.Errorf("the CPU-only pod's row: %+v", cpu)
	}
	if err := r.Reconcile(); err != nil {
		t.Errorf("rows by mechanism do not add up to the totals: %v", err)
	}
	ns := report(t, s, nil)
	if got := row(t, ns, "ml").Mechanisms; !cmp.Equal(got, []string{"device-plugin", "dra"}) {
		t.Errorf("namespace ml: mechanisms %v, want [device-plugin dra]", got)
	}
	if got := row(t, ns, UnallocatedKey).Mechanisms; !cmp.Equal(got, []string{"dra", "hami"}) {
		t.Errorf("unallocated: mechanisms %v, want [dra hami] (n3 is fully held)", got)
	}
}
