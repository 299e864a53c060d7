package snapshot

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// benchScales are the simulated clusters the benchmarks read and write:
// 96, 960 and 9,984 GPUs (the last is issue 17's 10k GPUs / 58k pods).
var benchScales = []int{1, 10, 104}

// benchSnapshots generates each scale once per test binary.
var benchSnapshots = sync.OnceValue(func() map[int]*cluster.Snapshot {
	out := map[int]*cluster.Snapshot{}
	for _, sc := range benchScales {
		cfg := sim.DefaultConfig()
		cfg.Scale = sc
		s, err := sim.Generate(cfg)
		if err != nil {
			panic(err)
		}
		out[sc] = s
	}
	return out
})

func BenchmarkWrite(b *testing.B) {
	for _, sc := range benchScales {
		s := benchSnapshots()[sc]
		b.Run(fmt.Sprintf("gpus=%d", sc*sim.GPUsPerScale), func(b *testing.B) {
			var n int64
			for b.Loop() {
				cw := &countWriter{}
				if err := Write(cw, s); err != nil {
					b.Fatal(err)
				}
				n = cw.n
			}
			report(b, len(s.Pods), n)
		})
	}
}

func BenchmarkRead(b *testing.B) {
	for _, version := range []int{1, 2} {
		for _, sc := range benchScales {
			s := benchSnapshots()[sc]
			var data []byte
			if version == 1 {
				data = encodeV1(b, s, gzip.DefaultCompression)
			} else {
				data = encodeV2(b, s)
			}
			b.Run(fmt.Sprintf("version=%d/gpus=%d", version, sc*sim.GPUsPerScale), func(b *testing.B) {
				for b.Loop() {
					if _, err := Read(bytes.NewReader(data)); err != nil {
						b.Fatal(err)
					}
				}
				report(b, len(s.Pods), int64(len(data)))
			})
		}
	}
}

// report adds pods/s and the file's size in MB.
func report(b *testing.B, pods int, size int64) {
	b.ReportMetric(float64(pods)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(size)/1e6, "file-MB")
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

var _ io.Writer = (*countWriter)(nil)
