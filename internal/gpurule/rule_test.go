package gpurule

import (
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func TestResourcesMatchExactNamesAndPrefixes(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"nvidia.com/gpu": true, "nvidia.com/gpu.shared": true, "nvidia.com/mig-3g.40gb": true,
		"nvidia.com/mig": false, "nvidia.com/gpumem": false, "amd.com/gpu": false, "": false} {
		if got := GPUResources.Match(name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
	p := &cluster.Pod{Containers: []cluster.Container{{GPURequests: map[string]int64{"nvidia.com/gpu": 2, "nvidia.com/mig-1g.10gb": 1}},
		{GPURequests: map[string]int64{"nvidia.com/gpu": 1, "example.com/fpga": 4}}}}
	if n := GPUResources.Units(p); n != 4 {
		t.Errorf("GPU units %d, want 4", n)
	}
	if n := WholeGPUResources.Units(p); n != 3 {
		t.Errorf("whole GPUs %d, want 3", n)
	}
	if n := DevWholeGPUs(p, []string{"dev*"}, WholeGPUResources, nil); n != 0 {
		t.Errorf("outside a dev namespace: %d", n)
	}
	p.Namespace = "dev-a"
	if n := DevWholeGPUs(p, []string{"dev*"}, WholeGPUResources, nil); n != 3 {
		t.Errorf("in a dev namespace: %d, want 3", n)
	}
	held := func(*cluster.Pod) (int64, bool) { return 1, true }
	if n := DevWholeGPUs(p, []string{"dev*"}, WholeGPUResources, held); n != 1 {
		t.Errorf("what the pod holds, where known: %d, want 1", n)
	}
}

func TestAnyValueTaint(t *testing.T) {
	t.Parallel()
	taint := cluster.Taint{Key: "nvidia.com/gpu", Effect: "NoSchedule"}
	other := cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Equal", Value: "present"}
	if Tolerates(other, taint, false) || !Tolerates(other, taint, true) {
		t.Error("an Equal toleration of another value: tolerated only when the taint's value is any")
	}
	if !Tolerates(cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Equal"}, taint, false) {
		t.Error("Equal with the (empty) value of the taint is not tolerated")
	}
}

func TestLimitProblemsNameEachProblem(t *testing.T) {
	t.Parallel()
	c := &cluster.Container{CPURequestMilli: 500, CPULimitMilli: 1000, MemoryRequest: 1 << 30}
	got := LimitProblems(c, func(b int64) string { return "B" })
	if len(got) != 2 || got[0] != "CPU request 500m ≠ limit 1000m" || got[1] != "no memory limit" {
		t.Errorf("problems %q", got)
	}
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	if Of(true, true) != Yes || Of(false, true) != No || Of(true, false) != Unknown || Unknown.String() != "unknown" || No.String() != "no" || Yes.String() != "yes" {
		t.Error("verdicts")
	}
}
