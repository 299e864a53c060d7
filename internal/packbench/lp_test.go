package packbench

import (
	"math"
	"testing"
)

func TestMaximize(t *testing.T) {
	t.Parallel()
	// max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18: the textbook optimum
	// is x = 2, y = 6.
	got, duals, err := maximize([]float64{3, 5}, [][]float64{{1, 0}, {0, 2}, {3, 2}}, []float64{4, 12, 18})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got[0]-2) > 1e-9 || math.Abs(got[1]-6) > 1e-9 {
		t.Errorf("maximize = %v, want [2 6]", got)
	}
	// The textbook duals: 0, 3/2, 1 (36 = 12·3/2 + 18·1).
	if math.Abs(duals[0]) > 1e-9 || math.Abs(duals[1]-1.5) > 1e-9 || math.Abs(duals[2]-1) > 1e-9 {
		t.Errorf("duals = %v, want [0 1.5 1]", duals)
	}
}

// TestGPUPrices checks the LP optimum (the fewest GPUs a fractional packing
// needs) and the prices on mixes whose optimal packing is known.
func TestGPUPrices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		sizes     []int64
		counts    []float64
		wantGPUs  float64
		wantPrice map[int64]float64 // the prices an optimum must have
	}{
		{"no fractional requests", nil, nil, 0, nil},
		{"halves pair", []int64{500}, []float64{9}, 4.5, map[int64]float64{500: 0.5}},
		{"an 810 takes a GPU and a 160 rides free beside it", []int64{810, 160}, []float64{10, 5}, 10, map[int64]float64{810: 1, 160: 0}},
		{"470s pair, 320s go beside 650s", []int64{650, 470, 320}, []float64{30, 100, 30}, 80, map[int64]float64{470: 0.5}},
		{"more 320s than 650s: the rest go three to a GPU", []int64{650, 320}, []float64{30, 60}, 40, map[int64]float64{650: 2.0 / 3, 320: 1.0 / 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			y, err := gpuPrices(tt.sizes, tt.counts)
			if err != nil {
				t.Fatal(err)
			}
			var gpus float64
			for i := range y {
				gpus += y[i] * tt.counts[i]
			}
			if math.Abs(gpus-tt.wantGPUs) > 1e-6 {
				t.Errorf("LP optimum %v GPUs, want %v (prices %v)", gpus, tt.wantGPUs, y)
			}
			if v, _ := bestConfig(tt.sizes, y); v > 1+1e-6 {
				t.Errorf("prices %v let a configuration cost %v > 1 GPU", y, v)
			}
			for i, s := range tt.sizes {
				if want, ok := tt.wantPrice[s]; ok && math.Abs(y[i]-want) > 1e-6 {
					t.Errorf("price of %d = %v, want %v", s, y[i], want)
				}
			}
		})
	}
}

func TestGPUPotential(t *testing.T) {
	t.Parallel()
	v := gpuPotential([]int64{470, 320}, []float64{0.5, 1.0 / 3})
	for f, want := range map[int]float64{1000: 1, 940: 1, 530: 0.5, 469: 1.0 / 3, 319: 0, 210: 0} {
		if math.Abs(v[f]-want) > 1e-9 {
			t.Errorf("V[%d] = %v, want %v", f, v[f], want)
		}
	}
}

// TestGpusScarce checks the switch on the openb mixes: GPUs are the scarce
// resource on the default trace, CPU on cpu-double.
func TestGpusScarce(t *testing.T) {
	t.Parallel()
	d := mustDefault(t)
	c, err := newCluster(d.nodes, make([]int, len(d.nodes)))
	if err != nil {
		t.Fatal(err)
	}
	for mix, want := range map[string]bool{"default": true, "cpu-half": true, "cpu-double": false} {
		m, _ := MixByName(mix)
		if got := gpusScarce(c, m.Apply(d.nodes, d.pods)); got != want {
			t.Errorf("%s: gpusScarce = %v, want %v", mix, got, want)
		}
	}
	g, err := newGpuwise(c, d.pods)
	if err != nil || g.potential == nil || g.p.frag != defaultGpuwiseParams.frag {
		t.Errorf("default trace: potential term off (err %v, frag %v)", err, g.p.frag)
	}
}

// TestGPUPricesManySizes checks that the simplex stays feasible and
// converges on the largest problem fractionalRequests passes it: 32
// spread-out sizes (rounding once left it stuck at an infeasible point on
// larger, regular size grids).
func TestGPUPricesManySizes(t *testing.T) {
	t.Parallel()
	var sizes []int64
	var counts []float64
	for i := range maxPricedSizes {
		sizes = append(sizes, int64(990-31*i))
		counts = append(counts, float64(1+(i*37)%101))
	}
	y, err := gpuPrices(sizes, counts)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := bestConfig(sizes, y); v > 1+1e-6 {
		t.Errorf("prices let a configuration cost %v > 1 GPU", v)
	}
}

// TestFractionalRequestsCap keeps the most common sizes when a trace has
// more than maxPricedSizes.
func TestFractionalRequestsCap(t *testing.T) {
	t.Parallel()
	c := &cluster{models: []string{"T4"}}
	var pods []Pod
	for s := int64(10); s <= 400; s += 10 { // 40 sizes; size s asked s/10 times
		for range s / 10 {
			pods = append(pods, Pod{NumGPU: 1, Milli: s})
		}
	}
	pods = append(pods, Pod{NumGPU: 2, Milli: 1000}, Pod{CPU: 1000})
	sizes, counts := fractionalRequests(c, pods, 0)
	if len(sizes) != maxPricedSizes || sizes[0] != 400 || sizes[len(sizes)-1] != 90 || counts[0] != 40 {
		t.Errorf("sizes %v counts %v; want the 32 most common, 400 down to 90", sizes, counts)
	}
}
