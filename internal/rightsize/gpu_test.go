package rightsize

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/usage"
)

func TestGPUShape(t *testing.T) {
	t.Parallel()
	type want struct {
		action      GPUAction
		profile     string
		target      string
		replicas    int
		fraction    float64
		reasonHas   string
		alternative GPUAction // one of the alternatives, "" for none required
	}
	cases := []struct {
		name string
		ns   string
		act  float64 // p95 activity of a whole GPU
		fb   float64 // peak framebuffer MiB
		gpus int
		want want
	}{
		{"small inference fits 1g.10gb", "inference", 0.08, 6 * 1024, 1,
			want{UseMIG, "1g.10gb", "A100-80GB", 0, 0.1429, "saving is realised when the freed slices are packed", CheaperModel}},
		{"28 GiB peak needs 3g.40gb", "inference", 0.20, 28 * 1024, 1,
			want{UseMIG, "3g.40gb", "A100-80GB", 0, 0.5, "36 GiB usable holds 33.6 GiB", ""}},
		{"more than 40 GB with headroom stays whole", "inference", 0.20, 40 * 1024, 1,
			want{KeepWhole, "", "A100-80GB", 0, 1, "never recommends MIG above 40 GB", ""}},
		{"multi-GPU pods stay whole", "training", 0.05, 2 * 1024, 2,
			want{KeepWhole, "", "", 0, 1, "multi-GPU pods (2 GPUs each)", ""}},
		{"notebook namespace is time-sliced", "team-notebooks", 0.03, 6 * 1024, 1,
			want{UseTimeSlice, "", "A100-80GB", 8, 0.125, "never with inference", UseMIG}},
		{"A100-80GB at 22% with an 8 GB peak moves to a cheaper model", "inference", 0.22, 8 * 1024, 1,
			want{CheaperModel, "", "L4", 0, 1, "121 dense TFLOPS hold 82", UseMIG}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			units := []string{"a/gpu0", "a/gpu1"}[:c.gpus]
			s := snapshot(t, []cluster.Node{a100Node("a")}, gpuPod(c.ns, "w", "a", c.act, c.fb, units...))
			g := gpuRec(t, recommend(t, s, testCatalog()), c.ns+"/Deployment/w")
			got := want{g.Action, g.Profile, g.TargetModel, g.Replicas, g.Fraction, c.want.reasonHas, c.want.alternative}
			if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s\nreason: %s", diff, g.Reason)
			}
			if !strings.Contains(g.Reason, c.want.reasonHas) {
				t.Errorf("reason %q does not say %q", g.Reason, c.want.reasonHas)
			}
			if c.want.alternative != "" && !hasAlternative(g, c.want.alternative) {
				t.Errorf("no %s alternative in %+v", c.want.alternative, g.Alternatives)
			}
			if !g.Priced || g.Confidence != High {
				t.Errorf("priced %v, confidence %s; want priced, high", g.Priced, g.Confidence)
			}
			// Every pod here holds whole GPUs: 1 per GPU, in fraction's
			// unit, whether it has one GPU or two (it said 2 for two).
			if g.CurrentFraction != 1 {
				t.Errorf("current_fraction = %v, want 1 (per GPU, like fraction %v)", g.CurrentFraction, g.Fraction)
			}
		})
	}
}

func hasAlternative(g GPURec, a GPUAction) bool {
	for _, alt := range g.Alternatives {
		if alt.Action == a {
			return true
		}
	}
	return false
}

// The savings follow docs/recommendations.md: (current share × current
// $/GPU-h − new share × new $/GPU-h) × 730 h × average pods.
func TestGPUSavingsFormula(t *testing.T) {
	t.Parallel()
	cat := testCatalog()
	s := snapshot(t, []cluster.Node{a100Node("a")},
		gpuPod("inference", "small", "a", 0.08, 6*1024, "a/gpu0"),
		gpuPod("inference", "mid", "a", 0.22, 8*1024, "a/gpu1"))
	r := recommend(t, s, cat)
	a100 := price(t, cat, "p4de.24xlarge")
	l4 := price(t, cat, "g6.2xlarge")
	if got, want := gpuRec(t, r, "inference/Deployment/small").MonthlySavingsUSD, roundCents((1-1.0/7)*a100*730); got != want {
		t.Errorf("MIG 1g.10gb saving = %v, want %v", got, want)
	}
	mid := gpuRec(t, r, "inference/Deployment/mid")
	if want := roundCents((a100 - l4) * 730); mid.MonthlySavingsUSD != want {
		t.Errorf("cheaper-model saving = %v, want %v", mid.MonthlySavingsUSD, want)
	}
	// Both L4 sizes hold the pod's 2 cores and 8 GiB; g6.2xlarge's GPU
	// share of its price is the lower.
	if mid.TargetInstanceType != "g6.2xlarge" {
		t.Errorf("target instance = %q, want g6.2xlarge", mid.TargetInstanceType)
	}
	if sum := r.MonthlySavingsUSD; math.Abs(sum-sumSavings(r)) > 0.011 {
		t.Errorf("total %v is not the sum of the recommendations %v", sum, sumSavings(r))
	}
}

// The same case holds against the whole embedded catalog: T4 and A10G are
// cheaper but too slow for 22% of an A100 plus headroom; L4 is not.
func TestCheaperModelWithEmbeddedCatalog(t *testing.T) {
	t.Parallel()
	s := snapshot(t, []cluster.Node{a100Node("a")}, gpuPod("inference", "mid", "a", 0.22, 8*1024, "a/gpu0"))
	g := gpuRec(t, recommend(t, s, pricing.Embedded()), "inference/Deployment/mid")
	if g.Action != CheaperModel || g.TargetModel != "L4" {
		t.Errorf("got %s %s, want cheaper-model L4: %s", g.Action, g.TargetModel, g.Reason)
	}
}

func price(t *testing.T, c *pricing.Catalog, it string) float64 {
	t.Helper()
	e, _ := c.Lookup("aws", "us-east-1", it)
	p, err := c.Price(pricing.OfferSpec(e, pricing.OnDemand))
	if err != nil {
		t.Fatal(err)
	}
	return p.GPUUSDPerHour
}

func sumSavings(r *Result) float64 {
	var s float64
	for _, c := range r.Containers {
		if c.Priced {
			s += c.MonthlySavingsUSD
		}
	}
	for _, g := range r.GPU {
		if g.Priced {
			s += g.MonthlySavingsUSD
		}
	}
	return s
}

func TestGPUSkips(t *testing.T) {
	t.Parallel()
	mi300 := clustertest.Node("amd").Resources(96, 1152).Instance("p4de.24xlarge", cluster.OnDemand).GPUs(1, "MI300X").Obj()
	cases := []struct {
		name      string
		nodes     []cluster.Node
		pod       cluster.Pod
		reasonHas string
	}{
		{"unknown GPU model is never guessed", []cluster.Node{mi300}, gpuPod("inference", "w", "amd", 0.1, 2048, "amd/gpu0"), `"MI300X" is not in gpuwise's GPU table`},
		{"no DCGM series is unmeasured, not idle", []cluster.Node{a100Node("a")}, gpuPod("inference", "w", "a", -1, -1, "a/gpu0"), "unmeasured"},
		{"activity without framebuffer", []cluster.Node{a100Node("a")}, gpuPod("inference", "w", "a", 0.1, -1, "a/gpu0"), "framebuffer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := recommend(t, snapshot(t, c.nodes, c.pod), testCatalog())
			if len(r.GPU) != 0 {
				t.Fatalf("got a recommendation %+v", r.GPU[0])
			}
			if !hasSkip(r, "gpu", c.reasonHas) {
				t.Errorf("no gpu skip saying %q in %+v", c.reasonHas, r.Skipped)
			}
		})
	}
}

func TestTooLittleGPUData(t *testing.T) {
	t.Parallel()
	p := clustertest.Pod("inference", "w").On("a").Life(clustertest.At(0), clustertest.At(10)).Holds("a/gpu0", 0.1, 10*3600).Obj()
	p.GPUs[0].FramebufferMiB = &usage.Gauge{}
	p.GPUs[0].FramebufferMiB.Add(2048, 10*3600)
	r := recommend(t, snapshot(t, []cluster.Node{a100Node("a")}, p), testCatalog())
	if !hasSkip(r, "gpu", "too little data: 10h of GPU usage, the policy needs 1d (history.minObserved)") {
		t.Errorf("skips = %+v", r.Skipped)
	}
	if !hasSkip(r, "cpu-memory", "unmeasured: no CPU usage series") {
		t.Errorf("container without usage not skipped as unmeasured: %+v", r.Skipped)
	}
}

func TestUnpricedNodeIsCountedNotZero(t *testing.T) {
	t.Parallel()
	n := clustertest.Node("onprem").Resources(96, 1152).Instance("dgx-a100", cluster.OnDemand).GPUs(8, "A100-80GB").Obj()
	n.Cloud, n.Region = "", ""
	r := recommend(t, snapshot(t, []cluster.Node{n}, gpuPod("inference", "w", "onprem", 0.08, 6*1024, "onprem/gpu0")), testCatalog())
	g := gpuRec(t, r, "inference/Deployment/w")
	if g.Priced || g.MonthlySavingsUSD != 0 || g.Action != UseMIG {
		t.Errorf("got %s priced=%v $%v; want an unpriced MIG recommendation", g.Action, g.Priced, g.MonthlySavingsUSD)
	}
	if r.Unpriced != 2 || r.MonthlySavingsUSD != 0 { // the GPU shape and the container
		t.Errorf("unpriced %d, total $%v; want 2 and 0", r.Unpriced, r.MonthlySavingsUSD)
	}
	if len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "onprem") {
		t.Errorf("notes %v do not name the unpriced node", r.Notes)
	}
}

// A workload on a MIG slice that holds its measured peak but not the
// headroom keeps its slice: paying more is not recommended on headroom
// alone.
func TestCurrentMIGSliceKept(t *testing.T) {
	t.Parallel()
	n := clustertest.Node("m").Resources(96, 1152).Instance("p4de.24xlarge", cluster.OnDemand).
		MIG("A100-80GB", "1g.10gb", "1g.10gb").GPUs(7, "A100-80GB").Obj()
	p := gpuPod("inference", "w", "m", 0.7, 8*1024, n.GPUs[0].Units[0].ID) // 70% of a 1g slice = 10% of the GPU
	p.Containers[0].GPURequests = map[string]int64{"nvidia.com/mig-1g.10gb": 1}
	g := gpuRec(t, recommend(t, snapshot(t, []cluster.Node{n}, p), testCatalog()), "inference/Deployment/w")
	if g.Action != UseMIG || g.Profile != "1g.10gb" || g.MonthlySavingsUSD != 0 || !strings.Contains(g.Reason, "keep MIG 1g.10gb") {
		t.Errorf("got %s %s $%v: %s", g.Action, g.Profile, g.MonthlySavingsUSD, g.Reason)
	}
	if math.Abs(g.P95Activity-0.1) > 0.001 {
		t.Errorf("p95 activity %v: a slice's activity must be scaled to the whole GPU (0.7 × 1/7)", g.P95Activity)
	}
}

func hasSkip(r *Result, kind, reasonHas string) bool {
	for _, s := range r.Skipped {
		if s.Kind == kind && strings.Contains(s.Reason, reasonHas) {
			return true
		}
	}
	return false
}

// A workload holding a whole GPU through a DRA ResourceClaim while it
// uses a slice: the fix is a MIG device by CEL selector, not a device
// plugin resource.
func TestDRAWholeGPUClaimMovesToMIGSelector(t *testing.T) {
	t.Parallel()
	n := a100Node("a")
	for i := range n.GPUs {
		n.GPUs[i].Allocator = cluster.DRA
	}
	p := gpuPod("inference", "w", "a", 0.08, 6*1024, "a/gpu0")
	for i := range p.Containers {
		p.Containers[i].GPURequests = nil
	}
	p.Claims = []string{"inference/w-gpu"}
	g := gpuRec(t, recommend(t, snapshot(t, []cluster.Node{n}, p), testCatalog()), "inference/Deployment/w")
	want := "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"
	if g.Action != UseMIG || g.Resource != "mig.nvidia.com" || g.DRASelector != want || g.CurrentResource != "ResourceClaim" {
		t.Fatalf("got %s %q selector %q from %q; want mig, mig.nvidia.com, %q, ResourceClaim", g.Action, g.Resource, g.DRASelector, g.CurrentResource, want)
	}
	if !strings.Contains(g.Reason, "deviceClassName mig.nvidia.com with selector "+want) {
		t.Errorf("reason %q does not give the claim's fix", g.Reason)
	}
	if g.MonthlySavingsUSD <= 0 {
		t.Errorf("saving $%v, want the same positive saving as a device-plugin pod", g.MonthlySavingsUSD)
	}
}
