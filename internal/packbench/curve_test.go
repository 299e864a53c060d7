package packbench

import (
	"math"
	"testing"
)

func TestPairwiseSumMatchesNumpyShape(t *testing.T) {
	t.Parallel()
	// Below 8 values numpy adds in order; 0.1+0.2+0.3 differs from
	// 0.1+(0.2+0.3) in the last bit.
	a, b, c := 0.1, 0.2, 0.3
	if got, want := pairwiseSum([]float64{a, b, c}), (a+b)+c; got != want {
		t.Errorf("small sum = %v, want %v", got, want)
	}
	xs := make([]float64, 300)
	for i := range xs {
		xs[i] = 1 / float64(i+1)
	}
	var naive float64
	for _, x := range xs {
		naive += x
	}
	if got := pairwiseSum(xs); math.Abs(got-naive) > 1e-12 {
		t.Errorf("pairwise %v far from naive %v", got, naive)
	}
}

func TestRound2HalfEven(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want float64 }{{0.125, 0.12}, {0.375, 0.38}, {95.385, 95.38} /* 95.385 is stored as 95.38499…, as in numpy */, {-0.125, -0.12}} {
		if got := round2(tc.in); got != tc.want {
			t.Errorf("round2(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestPlacementTieBreakAndFilter(t *testing.T) {
	t.Parallel()
	nodes := []Node{
		{Name: "a", Model: "T4", GPUs: 2, CPUCap: 64000, MemCap: 1 << 20, CPU: 64000, Mem: 1 << 20, Free: [MaxGPUs]int64{1000, 1000}},
		{Name: "b", Model: "T4", GPUs: 2, CPUCap: 64000, MemCap: 1 << 20, CPU: 64000, Mem: 1 << 20, Free: [MaxGPUs]int64{1000, 1000}},
		{Name: "c", Model: "G2", GPUs: 8, CPUCap: 96000, MemCap: 1 << 20, CPU: 96000, Mem: 10, Free: [MaxGPUs]int64{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}},
	}
	c, err := newCluster(nodes, []int{2, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{c: c, pol: bestFit{}, cache: make([][]cached, 2)}
	// Memory rules node c out; a and b tie, and b has the smaller rank.
	q := request{cpu: 1000, mem: 100, num: 1, milli: 500, models: ^uint64(0)}
	if !r.place(&q) || c.nodes[1].Free[0] != 500 {
		t.Fatalf("first pod: nodes %+v", c.nodes)
	}
	// BestFit then packs the next half GPU onto the same GPU of b.
	if !r.place(&q) || c.nodes[1].Free[0] != 0 {
		t.Fatalf("second pod: nodes %+v", c.nodes)
	}
	// A pod pinned to a model no node has fits nowhere.
	p := request{cpu: 1000, num: 1, milli: 1000, models: c.modelSet([]string{"A100"}), spec: 1}
	if r.place(&p) {
		t.Fatal("pod for a missing model was placed")
	}
}
