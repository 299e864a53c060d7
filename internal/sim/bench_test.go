package sim

import (
	"fmt"
	"testing"
)

// BenchmarkGenerate generates a week at 5-minute samples for about 100,
// 1k and 10k GPUs, reporting pods and samples per second.
func BenchmarkGenerate(b *testing.B) {
	for _, scale := range []int{1, 10, 104} {
		cfg := DefaultConfig()
		cfg.Scale = scale
		b.Run(fmt.Sprintf("gpus=%d", scale*GPUsPerScale), func(b *testing.B) {
			if scale > 10 && testing.Short() {
				b.Skip("10k GPUs: skipped in -short mode")
			}
			b.ReportAllocs()
			var pods, samples int64
			for b.Loop() {
				s, err := Generate(cfg)
				if err != nil {
					b.Fatal(err)
				}
				pods += int64(len(s.Pods))
				samples += countSamples(s)
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(pods)/sec, "pods/s")
			b.ReportMetric(float64(samples)/sec, "samples/s")
		})
	}
}
