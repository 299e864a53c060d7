package rightsize

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// l4MiB is an L4's framebuffer as the fixture's node reports it.
const l4MiB = 23034

// hamiNode is a g6.2xlarge whose L4 HAMi splits into ten vGPUs; unit r
// asks asks[r] (cores %, gpumem MiB).
func hamiNode(asks ...[2]int) cluster.Node {
	n := clustertest.Node("h").Resources(8, 32).Instance("g6.2xlarge", cluster.OnDemand).GPUs(1, "L4").Obj()
	g := &n.GPUs[0]
	g.Sharing, g.Replicas, g.MemoryMiB, g.Units = cluster.HAMi, 10, l4MiB, nil
	for r := range 10 {
		u := cluster.Unit{ID: "h/gpu0/vgpu-" + string(rune('0'+r)), Kind: cluster.TimeSlice}
		if r < len(asks) {
			u.CoresPercent, u.MemoryMiB = asks[r][0], int64(asks[r][1])
		}
		g.Units = append(g.Units, u)
	}
	return n
}

// A dev notebook on a HAMi vGPU asking 10 % of the cores and 2048 MiB uses
// 20 % of its share's compute (2 % of the GPU) and 500 MiB: the
// recommendation is a smaller HAMi ask, never a time-slice replica, and
// its saving is the cost engine's HAMi share rule by hand: the share goes
// from max(10/100, 2048/23034) = 0.1 to max(3/100, 768/23034) = 0.03334
// (gpucores ⌈2 % × 1.2⌉ = 3 %, gpumem ⌈600 MiB / 256⌉ × 256 = 768 MiB), at
// the g6.2xlarge's GPU $/h × 730 h.
func TestHAMiShareResizedByTheShareRule(t *testing.T) {
	t.Parallel()
	cat := testCatalog()
	s := snapshot(t, []cluster.Node{hamiNode([2]int{10, 2048})}, gpuPod("dev", "nb", "h", 0.2, 500, "h/gpu0/vgpu-0"))
	r := recommend(t, s, cat)
	g := gpuRec(t, r, "dev/Deployment/nb")
	if g.Action != UseHAMiShare || g.HAMi == nil || *g.HAMi != (HAMiAsk{CoresPercent: 3, MemoryMiB: 768}) {
		t.Fatalf("got %s %+v, want hami-share gpucores 3%% gpumem 768 MiB: %s", g.Action, g.HAMi, g.Reason)
	}
	if g.CurrentHAMi == nil || *g.CurrentHAMi != (HAMiAsk{CoresPercent: 10, MemoryMiB: 2048}) || g.CurrentFraction != 0.1 {
		t.Errorf("current %+v share %v, want gpucores 10%% gpumem 2048 MiB, 0.1", g.CurrentHAMi, g.CurrentFraction)
	}
	newShare := 768.0 / l4MiB
	if g.Fraction != math.Round(newShare*1e4)/1e4 {
		t.Errorf("fraction %v, want 768/23034 = %.4f", g.Fraction, newShare)
	}
	want := math.Round((0.1-newShare)*price(t, cat, "g6.2xlarge")*730*100) / 100
	if g.MonthlySavingsUSD != want || want <= 0 {
		t.Errorf("saving $%v, want (0.1 − 768/23034) × $%.4f/GPU-h × 730 = $%v", g.MonthlySavingsUSD, price(t, cat, "g6.2xlarge"), want)
	}
	for _, a := range g.Alternatives {
		if a.Action == UseTimeSlice || a.Action == CheaperModel {
			t.Errorf("alternative %s for a HAMi share: %s", a.Action, a.Reason)
		}
	}
}

// The demo's hami-carol case: a HAMi ask already the size of its use (10 %
// of the cores and 2048 MiB, 1800 MiB used). Time-slicing it 8 ways would
// hold 1/8 = 0.125 of the GPU, more than its 0.1: it costs more, so it is
// not proposed; the pod keeps its ask at $0, and the total counts nothing
// negative.
func TestHAMiShareNeverCostsMore(t *testing.T) {
	t.Parallel()
	s := snapshot(t, []cluster.Node{hamiNode([2]int{10, 2048})}, gpuPod("dev", "carol", "h", 0.5, 1800, "h/gpu0/vgpu-0"))
	r := recommend(t, s, testCatalog())
	g := gpuRec(t, r, "dev/Deployment/carol")
	if g.Action != UseHAMiShare || g.MonthlySavingsUSD != 0 || g.HAMi == nil || *g.HAMi != *g.CurrentHAMi {
		t.Fatalf("got %s %+v $%v, want its current HAMi ask kept at $0: %s", g.Action, g.HAMi, g.MonthlySavingsUSD, g.Reason)
	}
	if !strings.Contains(g.Reason, "keep its HAMi share gpucores 10%, gpumem 2048 MiB") || !strings.Contains(g.Reason, "above its ask") {
		t.Errorf("reason %q does not say why it keeps its ask", g.Reason)
	}
	for _, c := range r.Containers {
		if c.MonthlySavingsUSD < 0 {
			t.Errorf("container %s costs more: %v", c.Container, c.MonthlySavingsUSD)
		}
	}
}

// A device-plugin dev workload on a 1/8 time-slice whose memory needs 1/3
// (peak 20 GiB; no cheaper model holds 24 GiB, a MIG slice costs more
// too): the 1/3 share is a change that costs more. It is shown (the pod needs
// it) with its negative figure, and the result's total leaves it out.
func TestCostsMoreIsNotCountedInTheTotal(t *testing.T) {
	t.Parallel()
	n := clustertest.Node("a").Resources(96, 1152).Instance("p4de.24xlarge", cluster.OnDemand).TimeSliced("A100-80GB", 8).Obj()
	r := recommend(t, snapshot(t, []cluster.Node{n}, gpuPod("dev", "big", "a", 0.02, 20*1024, "a/gpu0/ts-0")), testCatalog())
	g := gpuRec(t, r, "dev/Deployment/big")
	if g.Action != UseTimeSlice || g.Replicas != 3 || g.MonthlySavingsUSD >= 0 {
		t.Fatalf("got %s 1/%d $%v, want time-slice 1/3 costing more: %s", g.Action, g.Replicas, g.MonthlySavingsUSD, g.Reason)
	}
	var want float64
	for _, c := range r.Containers {
		want += max(c.MonthlySavingsUSD, 0)
	}
	if got := r.MonthlySavingsUSD; math.Abs(got-want) > 0.005 {
		t.Errorf("total $%v, want $%v: the savings without the change that costs more ($%v)", got, want, g.MonthlySavingsUSD)
	}
}

// A DRA workload whose cheaper GPU model saves: the fix is its claim's, a
// CEL selector on the driver's productName and memory capacity, never an
// nvidia.com/gpu limit.
func TestDRACheaperModelIsAClaimSelector(t *testing.T) {
	t.Parallel()
	n := a100Node("a")
	for i := range n.GPUs {
		n.GPUs[i].Allocator = cluster.DRA
	}
	p := gpuPod("inference", "mid", "a", 0.22, 8*1024, "a/gpu0")
	for i := range p.Containers {
		p.Containers[i].GPURequests = nil
	}
	p.Claims = []string{"inference/mid-gpu"}
	g := gpuRec(t, recommend(t, snapshot(t, []cluster.Node{n}, p), testCatalog()), "inference/Deployment/mid")
	want := "device.attributes['gpu.nvidia.com'].productName.contains('L4') && device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('9831Mi')) >= 0"
	if g.Action != CheaperModel || g.TargetModel != "L4" || g.Resource != cluster.DRAGPUClass || g.DRASelector != want {
		t.Fatalf("got %s %s %q selector %q; want cheaper-model L4, %s, %q", g.Action, g.TargetModel, g.Resource, g.DRASelector, cluster.DRAGPUClass, want)
	}
	if !strings.Contains(g.Reason, "deviceClassName gpu.nvidia.com with selector "+want) {
		t.Errorf("reason %q does not give the claim's fix", g.Reason)
	}
}
