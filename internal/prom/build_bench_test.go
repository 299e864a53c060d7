package prom

import (
	"context"
	"testing"

	"github.com/gpuwise/gpuwise/internal/prom/promtest"
)

// BenchmarkBuildSimulated is a whole Build by remote read of the three
// simulated days (Scale 1) from the in-process fake Prometheus: gpuwise's
// side of the ingest, allocation included, without a real server's time
// (docs/performance.md).
func BenchmarkBuildSimulated(b *testing.B) {
	h, err := simulated()
	if err != nil {
		b.Fatal(err)
	}
	srv := promtest.New(b, h.series)
	opts := testOptions(srv.URL, ReadRemote)
	opts.Window = h.truth.Window
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}
