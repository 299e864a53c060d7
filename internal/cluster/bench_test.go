package cluster_test

import (
	"fmt"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// BenchmarkPrepare checks the simulated week (96, 960 and 9,984 GPUs), as
// every command does after reading a snapshot; Prepare is idempotent, so
// each iteration checks the same snapshot again.
func BenchmarkPrepare(b *testing.B) {
	for _, scale := range []int{1, 10, 104} {
		b.Run(fmt.Sprintf("gpus=%d", scale*sim.GPUsPerScale), func(b *testing.B) {
			cfg := sim.DefaultConfig()
			cfg.Scale = scale
			s, err := sim.Generate(cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := cluster.Prepare(s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(s.Pods))*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}
