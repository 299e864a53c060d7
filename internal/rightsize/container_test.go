package rightsize

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func TestContainerRecommendation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                string
		cpuReq, cpuUse      float64 // millicores, cores
		memReq, memUse      int64   // bytes
		memLimit            int64
		oomKills            int
		wantCPU             int64
		wantMem             int64
		wantRound, wantBump bool
	}{
		{"p95 CPU and p99 memory × 1.2, round request flagged", 8000, 1.234, 32 << 30, 10 << 30, 0, 0,
			1240, 12 << 30, true, false},
		{"minimums 10m and 64Mi", 500, 0.001, 256 << 20, 1 << 20, 0, 0,
			10, 64 << 20, false, false},
		{"OOM kill bumps memory to the limit + 10%", 1500, 0.5, 3 << 30, 2 << 30, 4 << 30, 2,
			500, 4506 << 20, false, true}, // 4 GiB × 1.1 = 4505.6 MiB, rounded up
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := gpuPod("inference", "w", "a", 0.5, 30*1024, "a/gpu0")
			ct := &p.Containers[0]
			ct.CPURequestMilli, ct.MemoryRequest, ct.MemoryLimit = int64(c.cpuReq), c.memReq, c.memLimit
			ct.CPU, ct.Memory = gauge(c.cpuUse), gauge(float64(c.memUse))
			p.OOMKills = c.oomKills
			r := recommend(t, snapshot(t, []cluster.Node{a100Node("a")}, p), testCatalog())
			if len(r.Containers) != 1 {
				t.Fatalf("containers = %+v, skipped %+v", r.Containers, r.Skipped)
			}
			got := r.Containers[0]
			type view struct {
				CPU, Mem    int64
				Round, Bump bool
			}
			// Gauge quantiles are bucket edges within 4.4%: compare the
			// CPU and memory figures after the same rounding the engine does.
			want := view{c.wantCPU, c.wantMem, c.wantRound, c.wantBump}
			if diff := cmp.Diff(want, view{got.CPUMilli, got.MemoryBytes, got.RoundNumber, got.OOMBumped}); diff != "" {
				t.Errorf("(-want +got):\n%s\nreason: %s", diff, got.Reason)
			}
			// A week of full coverage is high; an OOM kill cuts the
			// memory use off at the limit: at most medium.
			wantConf := High
			if c.oomKills > 0 {
				wantConf = Medium
			}
			if got.CPUEvidence.Pods != 1 || got.CPUEvidence.Coverage != 1 || got.Confidence != wantConf {
				t.Errorf("evidence %+v, confidence %s", got.CPUEvidence, got.Confidence)
			}
		})
	}
}

// Savings: (Δcores × $/core-h + ΔGiB × $/GiB-h) × 730 × average pods.
func TestContainerSavings(t *testing.T) {
	t.Parallel()
	cat := testCatalog()
	p := gpuPod("inference", "w", "a", 0.5, 30*1024, "a/gpu0")
	ct := &p.Containers[0]
	ct.CPURequestMilli, ct.MemoryRequest = 4000, 16<<30
	ct.CPU, ct.Memory = gauge(1), gauge(float64(5<<30))
	r := recommend(t, snapshot(t, []cluster.Node{a100Node("a")}, p), cat)
	c := r.Containers[0]
	e, _ := cat.Lookup("aws", "us-east-1", "p4de.24xlarge")
	np, err := cat.Price(cluster96(e))
	if err != nil {
		t.Fatal(err)
	}
	want := roundCents((float64(4000-c.CPUMilli)/1000*np.CPUUSDPerCoreHour + float64(16<<30-c.MemoryBytes)/float64(gib)*np.MemoryUSDPerGiBHour) * 730)
	if c.MonthlySavingsUSD != want || !c.Priced {
		t.Errorf("saving = %v (priced %v), want %v", c.MonthlySavingsUSD, c.Priced, want)
	}
}

func TestPolicyValidateListsEveryField(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	p.CPU.Percentile = 1.5
	p.Memory.Headroom = -0.2
	p.GPU.ComputeHeadroom = -1
	p.GPU.MinReplicas = 1
	err := p.Validate()
	for _, field := range []string{"cpu.percentile: 1.5", "memory.headroom: -0.2", "gpu.computeHeadroom: -1", "gpu.timeSlice.minReplicas: 1"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate() = %v; missing %q", err, field)
		}
	}
	if err := DefaultPolicy().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	if _, err := Recommend(&cluster.Prepared{}, p, testCatalog()); err == nil {
		t.Error("Recommend accepted an invalid policy")
	}
}

// Request floors are bounded: a floor no node could meet is a mistake, and
// one near int64's limit (9Ei) was recommended as 9223372036854775807 bytes.
func TestPolicyBoundsRequestFloors(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	p.CPU.MinMilli, p.Memory.MinBytes = MaxMinCPUMilli+1, math.MaxInt64
	err := p.Validate()
	for _, field := range []string{"cpu.min: 1024001m is above the limit", "memory.min: 9223372036854775807 bytes is above the limit"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate() = %v; missing %q", err, field)
		}
	}
	p.CPU.MinMilli, p.Memory.MinBytes = MaxMinCPUMilli, MaxMinMemoryBytes
	if err := p.Validate(); err != nil {
		t.Errorf("floors at the limit refused: %v", err)
	}
}
