package rightsize

import (
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// starvedSnapshot is a GPU workload whose container requests and is
// limited to 8 cores, uses 2 on average (bursts hit the limit), and whose
// hourly series show throttled the given share of CFS periods. hourly
// false leaves the snapshot without hourly series.
func starvedSnapshot(t *testing.T, throttled float32, hourly bool) *cluster.Prepared {
	t.Helper()
	p := gpuPod("batch", "score", "a1", 0.05, 8000, "a1/gpu0")
	c := &p.Containers[0]
	c.CPURequestMilli, c.CPULimitMilli = 8000, 8000
	c.GPURequests = map[string]int64{"nvidia.com/gpu": 1}
	c.CPU = gauge(2)
	s := &cluster.Snapshot{Window: clustertest.Window(weekHours), Nodes: []cluster.Node{a100Node("a1")}, Pods: []cluster.Pod{p}}
	if hourly {
		n := s.Window.HourCount()
		w := cluster.WorkloadHours{Workload: p.WorkloadKey(), Pods: fill(n, 1), GPUHeld: fill(n, 1), GPUMeasured: fill(n, 1),
			GPUActive: fill(n, 0.05), GPUIdle: fill(n, 1), CPUThrottled: fill(n, throttled), CPUOfLimit: fill(n, 0.25)}
		s.Hourly = &cluster.Hourly{IdleThreshold: 0.1, Workloads: []cluster.WorkloadHours{w}}
	}
	return clustertest.Prepare(t, s)
}

func fill(n int, v float32) cluster.Series {
	s := make(cluster.Series, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func containerRec(t *testing.T, r *Result) ContainerRec {
	t.Helper()
	if len(r.Containers) != 1 {
		t.Fatalf("%d container recommendations, want 1 (skipped: %+v)", len(r.Containers), r.Skipped)
	}
	return r.Containers[0]
}

// TestNeverCutsCPUOfAStarvedGPUContainer is the regression test for issue
// 17 item 2: a GPU container throttled at its CPU limit while its GPU
// idles gets more CPU, never less, though its mean use (2 of 8 cores)
// alone would cut it to a quarter.
func TestNeverCutsCPUOfAStarvedGPUContainer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		throttled   float32
		hourly      bool
		wantMilli   int64
		wantStarved bool
	}{
		{"throttled half the periods: raised to limit/(1-0.5)", 0.5, true, 16000, true},
		{"throttled 30%: raised to limit/0.7", 0.3, true, 11430, true},
		{"throttled 90%: raised at most to twice the limit", 0.9, true, 16000, true},
		{"barely throttled: sized from use as before", 0.02, true, 2000, false},
		{"no hourly series: sized from use as before", 0, false, 2000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := containerRec(t, recommend(t, starvedSnapshot(t, tt.throttled, tt.hourly), testCatalog()))
			if rec.CPUMilli != tt.wantMilli || rec.CPUStarved != tt.wantStarved {
				t.Errorf("CPU %dm starved %v, want %dm starved %v (%s)", rec.CPUMilli, rec.CPUStarved, tt.wantMilli, tt.wantStarved, rec.Reason)
			}
			if tt.wantStarved && (rec.CPUMilli < rec.CurrentCPUMilli || !strings.Contains(rec.Reason, "CPU-starved") || rec.MonthlySavingsUSD > 0) {
				t.Errorf("starved container cut or unexplained: %dm from %dm, $%.2f saved, %q", rec.CPUMilli, rec.CurrentCPUMilli, rec.MonthlySavingsUSD, rec.Reason)
			}
		})
	}
}
