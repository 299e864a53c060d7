package ledger_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// BenchmarkBuild times the whole ledger (right-sizing, the consolidation
// packings, the cost allocation for the bridge and metrics) on the
// simulated cluster, 7 days at 5-minute steps, at 96, 960 and 9,984 GPUs.
func BenchmarkBuild(b *testing.B) {
	catalog := pricing.Embedded()
	for _, scale := range []int{1, 10, 104} {
		b.Run(fmt.Sprintf("gpus=%d", scale*sim.GPUsPerScale), func(b *testing.B) {
			cfg := sim.DefaultConfig()
			cfg.Window, cfg.Step, cfg.Scale = 7*24*time.Hour, 5*time.Minute, scale
			s, err := sim.Generate(cfg)
			if err != nil {
				b.Fatal(err)
			}
			p, err := cluster.Prepare(s)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var l *ledger.Ledger
			for b.Loop() {
				if l, err = ledger.Build(ledger.Input{Snapshot: p, Prices: catalog}, ledger.DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(l.Actions)), "actions")
			b.ReportMetric(float64(len(s.Pods)), "pods")
		})
	}
}
