package packing

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSolve packs generated clusters of 100, 1,000 and 10,000 nodes
// with about 10 pods per node (every demand kind, taints, selectors), and
// reports pods placed per second.
func BenchmarkSolve(b *testing.B) {
	for _, nodes := range []int{100, 1000, 10000} {
		p := genProblem(rand.New(rand.NewPCG(1, 2)), nodes, 21)
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", nodes, len(p.Workloads)), func(b *testing.B) {
			var pl *Plan
			for b.Loop() {
				var err error
				if pl, err = Solve(p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(p.Workloads))*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
			b.ReportMetric(float64(pl.After.Nodes), "nodes-kept")
		})
	}
}
