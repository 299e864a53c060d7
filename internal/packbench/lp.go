package packbench

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// This file prices fractional GPU requests with the configuration linear
// program of bin packing (Gilmore and Gomory): GPUs are bins of 1000 milli,
// a configuration is a multiset of requests that fits one GPU, and the LP
// covers the trace's requests with the fewest configurations. Its dual
//
//	maximize Σ_s n_s·y_s  subject to  Σ_s a_s·y_s ≤ 1 for every configuration a,  y ≥ 0
//
// gives each request size s a price y_s: the share of a GPU it costs in an
// optimal packing of the whole trace. An 810-milli request costs a whole GPU
// (nothing common fits beside it), a 470 half of one (they pair), a 160 costs
// nothing (the 190 left beside an 810 absorbs it for free).

// lpEps is the tolerance of the simplex and of the separation test.
const lpEps = 1e-9

// maxLPRounds bounds row generation; each round adds a violated
// configuration, and there are finitely many.
const maxLPRounds = 2000

// gpuPrices solves the dual LP for requests of the given sizes (milli, each
// in 1..999) and counts, by row generation: start from the single-size
// configurations, add the configuration the current prices violate most,
// until none does.
func gpuPrices(sizes []int64, counts []float64) ([]float64, error) {
	var rows [][]float64
	for i, s := range sizes {
		row := make([]float64, len(sizes))
		row[i] = float64(milliPerGPU / s)
		rows = append(rows, row)
	}
	for range maxLPRounds {
		y, _, err := maximize(counts, rows, ones(len(rows)))
		if err != nil {
			return nil, fmt.Errorf("pricing GPU requests: %w", err)
		}
		value, config := bestConfig(sizes, y)
		if value <= 1+lpEps {
			return y, nil
		}
		rows = append(rows, config)
	}
	return nil, errors.New("pricing GPU requests: row generation did not converge")
}

// bestConfig is the configuration of greatest total price: an unbounded
// knapsack over one GPU's milli.
func bestConfig(sizes []int64, y []float64) (float64, []float64) {
	var value [milliPerGPU + 1]float64
	var last [milliPerGPU + 1]int // item added last at each capacity, -1 none
	for c := range last {
		last[c] = -1
		for i, s := range sizes {
			if s <= int64(c) && value[c-int(s)]+y[i] > value[c]+lpEps {
				value[c], last[c] = value[c-int(s)]+y[i], i
			}
		}
	}
	config := make([]float64, len(sizes))
	for c := milliPerGPU; c > 0 && last[c] >= 0; c -= int(sizes[last[c]]) {
		config[last[c]]++
	}
	return value[milliPerGPU], config
}

func ones(n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = 1
	}
	return b
}

// maximize solves max c·x subject to A·x ≤ b, x ≥ 0, for b ≥ 0, with the
// simplex method on a dense tableau, starting from the slack basis
// (feasible because b ≥ 0) and pivoting by Bland's rule, which cannot
// cycle. It returns x and the rows' dual prices. The problems here have a
// few dozen rows and columns.
func maximize(c []float64, a [][]float64, b []float64) (x, duals []float64, err error) {
	t := newTableau(c, a, b)
	for pivots := 0; ; pivots++ {
		col := t.entering()
		if col < 0 {
			return t.solution(), t.duals(), nil
		}
		if pivots == 100*(len(c)+len(a)) {
			return nil, nil, errors.New("the simplex did not converge")
		}
		row := t.leaving(col)
		if row < 0 {
			return nil, nil, errors.New("the LP is unbounded")
		}
		t.pivot(row, col)
	}
}

// tableau is a simplex tableau: m constraint rows over n structural and m
// slack columns plus the right-hand side, and the objective row.
type tableau struct {
	n, m  int
	rows  [][]float64 // m rows of n+m+1 entries
	obj   []float64   // reduced costs, n+m+1 entries (last: -objective)
	basis []int       // basic column of each row
}

func newTableau(c []float64, a [][]float64, b []float64) *tableau {
	n, m := len(c), len(a)
	t := &tableau{n: n, m: m, rows: make([][]float64, m), obj: make([]float64, n+m+1), basis: make([]int, m)}
	for i, r := range a {
		row := make([]float64, n+m+1)
		copy(row, r)
		row[n+i], row[n+m] = 1, b[i]
		t.rows[i], t.basis[i] = row, n+i
	}
	for j, v := range c {
		t.obj[j] = -v
	}
	return t
}

// entering is the lowest column with a negative reduced cost, or -1 at the
// optimum.
func (t *tableau) entering() int {
	for j := range t.n + t.m {
		if t.obj[j] < -lpEps {
			return j
		}
	}
	return -1
}

// leaving is the row of the minimum ratio test, ties to the lowest basic
// column; -1 when the column is unbounded.
func (t *tableau) leaving(col int) int {
	best, ratio := -1, math.Inf(1)
	rhs := t.n + t.m
	for i, r := range t.rows {
		if r[col] <= lpEps {
			continue
		}
		// Rounding can leave a basic value a hair below zero; taken as is,
		// it gives a negative step that breaks feasibility.
		q := max(0, r[rhs]) / r[col]
		if q < ratio-lpEps || (q <= ratio+lpEps && best >= 0 && t.basis[i] < t.basis[best]) {
			best, ratio = i, q
		}
	}
	return best
}

func (t *tableau) pivot(row, col int) {
	pr := t.rows[row]
	inv := 1 / pr[col]
	for j := range pr {
		pr[j] *= inv
	}
	for i, r := range t.rows {
		if i != row {
			eliminate(r, pr, col)
		}
	}
	eliminate(t.obj, pr, col)
	t.basis[row] = col
}

// eliminate subtracts the multiple of the pivot row pr that zeroes r[col].
func eliminate(r, pr []float64, col int) {
	f := r[col]
	if f == 0 {
		return
	}
	for j := range r {
		r[j] -= f * pr[j]
	}
}

// solution reads the structural variables off the basis.
func (t *tableau) solution() []float64 {
	y := make([]float64, t.n)
	for i, b := range t.basis {
		if b < t.n {
			y[b] = max(0, t.rows[i][t.n+t.m])
		}
	}
	return y
}

// duals are the rows' dual prices: the reduced costs of their slacks.
func (t *tableau) duals() []float64 {
	return slices.Clone(t.obj[t.n : t.n+t.m])
}
