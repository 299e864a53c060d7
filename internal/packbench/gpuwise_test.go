package packbench

import (
	"fmt"
	"testing"
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

// TestGpuwiseDefault pins gpuwise's allocation at 130% on the default
// trace, seeds 42-51: above FGD's published 95.39. The 96.0 target is not
// reached yet (docs/performance.md).
func TestGpuwiseDefault(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("ten gpuwise seeds take minutes under -race; TestGpuwiseMixes covers it")
	}
	d := mustDefault(t)
	got := meanAlloc130(t, d.nodes, d.pods, Gpuwise, protocolSeeds)
	const fgd, floor = 95.39, 95.58
	if got < floor || got <= fgd {
		t.Errorf("gpuwise mean alloc@130 = %.2f, want >= %.2f (FGD %.2f)", got, floor, fgd)
	}
	t.Logf("gpuwise mean alloc@130 = %.2f (FGD %.2f)", got, fgd)
}

// TestGpuwiseMixes checks gpuwise against FGD on derived mixes, on fewer
// seeds to stay fast.
func TestGpuwiseMixes(t *testing.T) {
	t.Parallel()
	d := mustDefault(t)
	seeds := []int64{42, 43, 44}
	if raceEnabled {
		seeds = seeds[:1]
	}
	for _, name := range []string{"cpu-half", "frac-high", "frac-low", "gpu-spec"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m, err := MixByName(name)
			if err != nil {
				t.Fatal(err)
			}
			pods := m.Apply(d.nodes, d.pods)
			gw := meanAlloc130(t, d.nodes, pods, Gpuwise, seeds)
			fgd := meanAlloc130(t, d.nodes, pods, FGD, seeds)
			t.Logf("%s seeds %v: gpuwise %.2f, FGD %.2f", name, seeds, gw, fgd)
			if gw < fgd {
				t.Errorf("%s: gpuwise alloc@130 %.2f < FGD %.2f", name, gw, fgd)
			}
		})
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
