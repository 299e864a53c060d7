package lever

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger/ledgertest"
)

// TestDemandMatchesAPlainSweep: the compact step function (offsets and
// name indexes) gives the peak and hours above capacity of a plain sweep
// over every pod's held units, per model, capacity and planned shapes, on
// generated clusters.
func TestDemandMatchesAPlainSweep(t *testing.T) {
	t.Parallel()
	checked := 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 11))
		s := ledgertest.Cluster(t, rng)
		d := gpuDemand(s)
		shapes := map[string]reshape{}
		for _, w := range d.workloads {
			if rng.IntN(3) == 0 {
				shapes[w] = reshape{model: d.models[rng.IntN(len(d.models))], factor: []float64{0.25, 0.5, 1}[rng.IntN(3)]}
			}
		}
		for _, m := range append(slices.Clone(d.models), "no-such-model") {
			for _, capacity := range []float64{0, 1, 2.5, 4, 16} {
				for _, sh := range []map[string]reshape{nil, shapes} {
					peak, hours := d.over(m, capacity, sh)
					wantPeak, wantHours := plainOver(s, m, capacity, sh)
					if peak != wantPeak || hours != wantHours {
						t.Fatalf("seed %d, %s above %v: peak %v, %v h; plain sweep %v, %v h", seed, m, capacity, peak, hours, wantPeak, wantHours)
					}
					checked += min(1, int(wantHours))
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no case spent time above capacity: the test compares only zeros")
	}
}

// plainOver is the sweep written plainly: times, model and workload names.
func plainOver(s *cluster.Prepared, model string, capacity float64, shapes map[string]reshape) (peak, hours float64) {
	type event struct {
		at       time.Time
		delta    float64
		model    string
		workload string
	}
	var events []event
	for i := range s.Pods() {
		p := &s.Pods()[i]
		from, to, ok := s.Window().Interval(p.Start, p.End)
		if !ok {
			continue
		}
		for _, h := range p.GPUs {
			for _, n := range s.Nodes() {
				for _, g := range n.GPUs {
					for _, u := range g.Units {
						if u.ID == h.UnitID && u.Fraction > 0 {
							events = append(events, event{from, u.Fraction, g.Model, p.WorkloadKey()}, event{to, -u.Fraction, g.Model, p.WorkloadKey()})
						}
					}
				}
			}
		}
	}
	slices.SortFunc(events, func(a, b event) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.delta, b.delta)) })
	var cur float64
	var last time.Time
	above := false
	for _, e := range events {
		m, delta := e.model, e.delta
		if r, ok := shapes[e.workload]; ok {
			m, delta = r.model, delta*r.factor
		}
		if m != model {
			continue
		}
		if above {
			hours += e.at.Sub(last).Hours()
		}
		cur += delta
		peak, last, above = max(peak, cur), e.at, cur > capacity+1e-9
	}
	return peak, hours
}
