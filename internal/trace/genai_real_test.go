package trace

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/shareddata"
)

// realGenAIDir is the shared copy of the trace, relative to this package.
const realGenAIDir = "../../../shared/data/genai2026"

func needRealData(tb testing.TB) {
	tb.Helper()
	shareddata.Need(tb, realGenAIDir)
}

func TestReadGenAIRealData(t *testing.T) {
	needRealData(t)
	t.Parallel()
	r := report(t, realGenAIDir, GenAIOptions{}, pricing.Embedded())
	if err := r.Reconcile(); err != nil {
		t.Error(err)
	}
	tot := r.Totals
	if tot.GPUPods != 143 || tot.Pods != 143 {
		t.Errorf("pods = %d (GPU pods %d), want 143", tot.Pods, tot.GPUPods)
	}
	if tot.UnpricedGPUHours != 0 || tot.NodeCost <= 0 {
		t.Errorf("p5.48xlarge us-east-1 is unpriced: %v unpriced GPU-hours, node cost $%.2f", tot.UnpricedGPUHours, tot.NodeCost)
	}
	want := independentMeanDutyCycle(t, filepath.Join(realGenAIDir, DutyCycleFile))
	if got := tot.GPUUtilization; got == nil || math.Abs(*got-want) > 1e-9 {
		t.Errorf("utilization = %v, want the time-weighted mean duty cycle %.12f", got, want)
	}
	h := tot.GPUHours
	t.Logf("window %.3f h; %d pods on %d nodes (%d GPUs)", r.WindowHours, tot.Pods, tot.Nodes, tot.GPUs)
	t.Logf("GPU-hours: provisioned %.2f, allocated %.2f, active %.2f, idle %.2f, unmeasured %.2f, unallocated %.2f",
		h.Provisioned, h.Allocated, h.Active, h.Idle, h.Unmeasured, h.Unallocated)
	t.Logf("utilization %.4f of measured allocated, %.4f of provisioned; idle share %.4f",
		*tot.GPUUtilization, *tot.GPUUtilizationOfProvisioned, *tot.IdleShare)
	t.Logf("cost $%.2f for the window: GPU active $%.2f, allocated-idle $%.2f, unmeasured $%.2f, unallocated $%.2f; CPU/memory unallocated $%.2f; $%.0f/month",
		tot.TotalCost, tot.GPUCost.Active, tot.GPUCost.AllocatedIdle, tot.GPUCost.Unmeasured, tot.GPUCost.Unallocated,
		tot.CPUCost+tot.MemoryCost, tot.MonthlyCost)
}

// independentMeanDutyCycle recomputes the time-weighted mean duty cycle the
// plain way: all rows in memory, grouped by pod and sorted by time, each
// sample weighted by the gap to the pod's next one capped at twice the
// median gap, the last sample by the median gap.
func independentMeanDutyCycle(t *testing.T, path string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ t, v float64 }
	byPod := map[string][]row{}
	sc := bufio.NewScanner(zr)
	sc.Scan() // header: value,timestamp_anon,container_ip
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ",")
		v, err1 := strconv.ParseFloat(fields[0], 64)
		ts, err2 := strconv.ParseFloat(fields[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad row %q", sc.Text())
		}
		byPod[fields[2]] = append(byPod[fields[2]], row{ts, v})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var gaps []float64
	for _, rows := range byPod {
		slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(a.t, b.t) })
		for i := 1; i < len(rows); i++ {
			gaps = append(gaps, rows[i].t-rows[i-1].t)
		}
	}
	slices.Sort(gaps)
	step := (gaps[(len(gaps)-1)/2] + gaps[len(gaps)/2]) / 2
	var weighted, seconds float64
	for _, rows := range byPod {
		for i, r := range rows {
			w := step
			if i+1 < len(rows) {
				w = min(rows[i+1].t-r.t, 2*step)
			}
			weighted += r.v / 100 * w
			seconds += w
		}
	}
	t.Logf("independent pass: %d pods, median step %g s, mean duty cycle %.6f", len(byPod), step, weighted/seconds)
	return weighted / seconds
}

// BenchmarkReadGenAI replays the whole trace: two streaming passes over
// each of the two files, about 319k samples.
func BenchmarkReadGenAI(b *testing.B) {
	needRealData(b)
	var samples int64
	for b.Loop() {
		s, err := ReadGenAI(realGenAIDir, GenAIOptions{})
		if err != nil {
			b.Fatal(err)
		}
		samples = 0
		for _, p := range s.Pods {
			samples += p.GPUs[0].Activity.Samples
			if fb := p.GPUs[0].FramebufferMiB; fb != nil {
				samples += fb.Samples
			}
		}
	}
	b.ReportMetric(float64(samples)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
