package packbench

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/gpuwise/gpuwise/internal/trace"
)

// meanAlloc130 runs pol on seeds and returns the mean allocation at 130%.
func meanAlloc130(tb testing.TB, nodes []Node, pods []Pod, pol string, seeds []int64) float64 {
	tb.Helper()
	var curves []Curve
	for _, seed := range seeds {
		res, err := Run(Config{Nodes: nodes, Pods: pods, Policy: pol, Seed: seed, Tune: DefaultTune})
		if err != nil {
			tb.Fatal(err)
		}
		a, _ := Curves(res, 130)
		curves = append(curves, a)
	}
	return MeanCurve(curves).Value[130]
}

// gpuwiseTarget is the floor TestGpuwiseDefault holds gpuwise's mean
// alloc@130 on the default trace (seeds 42-51) to. Issue 17 asked for 96.5;
// docs/performance.md has the measured mean and the upper bound for any
// policy (UpperBound, 98.57 on seed 42; 96.47 under the retired TestBound's
// assumption).
const gpuwiseTarget = 96.25

// TestGpuwiseDefault checks gpuwise's mean allocation at 130% on the
// default trace, seeds 42-51, against gpuwiseTarget (FGD's published mean
// is 95.39).
func TestGpuwiseDefault(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("ten gpuwise seeds take minutes under -race; TestGpuwiseMixes covers it")
	}
	d := mustDefault(t)
	got := meanAlloc130(t, d.nodes, d.pods, Gpuwise, protocolSeeds)
	const fgd = 95.39
	if got < gpuwiseTarget {
		t.Errorf("gpuwise mean alloc@130 = %.2f, want >= %.2f (FGD %.2f)", got, gpuwiseTarget, fgd)
	}
	t.Logf("gpuwise mean alloc@130 = %.2f (FGD %.2f)", got, fgd)
}

// mixMargin is how far above FGD TestGpuwiseMixes wants gpuwise on every
// derived mix, in points of alloc@130.
const mixMargin = 0.5

// TestGpuwiseMixes checks gpuwise >= FGD + mixMargin on every derived mix,
// on seeds 42-44 (42 alone under -race) to stay fast; docs/performance.md
// has the ten-seed tables for seeds 42-51 and 52-61.
func TestGpuwiseMixes(t *testing.T) {
	t.Parallel()
	d := mustDefault(t)
	seeds := []int64{42, 43, 44}
	if raceEnabled {
		seeds = seeds[:1]
	}
	for _, m := range Mixes[1:] {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			pods := m.Apply(d.nodes, d.pods)
			gw := meanAlloc130(t, d.nodes, pods, Gpuwise, seeds)
			fgd := meanAlloc130(t, d.nodes, pods, FGD, seeds)
			t.Logf("%s seeds %v: gpuwise %.2f, FGD %.2f", m.Name, seeds, gw, fgd)
			if gw < fgd+mixMargin {
				t.Errorf("%s: gpuwise alloc@130 %.2f < FGD %.2f + %.1f", m.Name, gw, fgd, mixMargin)
			}
		})
	}
}

// publishedMargin is the floor TestGpuwiseOnPublishedWorkloads holds
// gpuwise to above FGD on seeds 42-44: below mixMargin because three seeds
// of multigpu40, the closest workload, give +0.50 (ten seeds +0.53;
// docs/performance.md has the ten-seed table of all 17 workloads).
const publishedMargin = 0.4

// TestGpuwiseOnPublishedWorkloads checks gpuwise above FGD on the paper's
// workloads beyond the default that testdata/openb holds: cpu250, the
// one where CPU (100%) is scarcer than GPUs (98%) and the potential term
// runs with FGD's full weight, and the four multi-GPU ones.
func TestGpuwiseOnPublishedWorkloads(t *testing.T) {
	t.Parallel()
	d := mustDefault(t)
	seeds := []int64{42, 43, 44}
	if raceEnabled {
		seeds = seeds[:1]
	}
	for _, w := range []string{"cpu250", "multigpu20", "multigpu30", "multigpu40", "multigpu50"} {
		t.Run(w, func(t *testing.T) {
			t.Parallel()
			rows, err := trace.ReadOpenBPods(openMaybeGzip(t, filepath.Join(multigpuDir, "openb_pod_list_"+w+".csv.gz")))
			if err != nil {
				t.Fatal(err)
			}
			pods := PodsFromOpenB(rows)
			if w == "cpu250" {
				c, err := newCluster(d.nodes, make([]int, len(d.nodes)))
				if err != nil {
					t.Fatal(err)
				}
				if share := gpuShare(c, pods); share < potentialShare || share >= 1 {
					t.Errorf("cpu250: gpuShare %.3f, want in [%.1f, 1): GPUs nearly but not quite scarce", share, potentialShare)
				}
			}
			gw := meanAlloc130(t, d.nodes, pods, Gpuwise, seeds)
			fgd := meanAlloc130(t, d.nodes, pods, FGD, seeds)
			t.Logf("%s seeds %v: gpuwise %.2f, FGD %.2f", w, seeds, gw, fgd)
			if gw < fgd+publishedMargin {
				t.Errorf("%s: gpuwise alloc@130 %.2f < FGD %.2f + %.1f", w, gw, fgd, publishedMargin)
			}
		})
	}
}

// TestSliverWaste checks the lookahead table on a toy distribution: half
// the pods take 500 milli, half a whole GPU.
func TestSliverWaste(t *testing.T) {
	t.Parallel()
	typical := []typicalPod{{cpu: 1, num: 1, milli: 500, models: ^uint64(0), freq: 0.5}, {cpu: 1, num: 1, milli: 1000, models: ^uint64(0), freq: 0.5}}
	var w [milliPerGPU + 1]float64
	sliverWaste(&w, typical, 0, 50)
	if w[499] != 499 || w[0] != 0 || w[500] >= 1e-9 || w[1000] >= 1e-9 {
		t.Errorf("w[0]=%v w[499]=%v w[500]=%v w[1000]=%v; want 0, 499, ~0, ~0", w[0], w[499], w[500], w[1000])
	}
	// 700 free takes a 500-pod (p = 0.5, almost surely within 50 chances)
	// and ends at 200.
	if math.Abs(w[700]-200) > 1e-6 {
		t.Errorf("w[700] = %v, want ~200", w[700])
	}
}

func BenchmarkRun(b *testing.B) {
	d := mustDefault(b)
	for _, pol := range Policies {
		b.Run(pol, func(b *testing.B) {
			var pods int
			for b.Loop() {
				res, err := Run(Config{Nodes: d.nodes, Pods: d.pods, Policy: pol, Seed: 42, Tune: DefaultTune})
				if err != nil {
					b.Fatal(err)
				}
				pods += len(res.Events)
			}
			b.ReportMetric(float64(pods)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}

func ExampleMixByName() {
	m, _ := MixByName("cpu-half")
	fmt.Println(m.Doc)
	// Output: every pod's CPU request halved
}
