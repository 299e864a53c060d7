package app

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gpuwise/gpuwise/internal/sim"
)

// BenchmarkReportFromFile times `report --from FILE` without the
// rendering: reading the saved demo snapshot (96, 960 and 9,984 GPUs),
// the cost allocation, the idle causes and the savings ledger, as the
// command runs them (docs/performance.md "Snapshot files").
func BenchmarkReportFromFile(b *testing.B) {
	for _, scale := range []int{1, 10, 104} {
		b.Run(fmt.Sprintf("gpus=%d", scale*sim.GPUsPerScale), func(b *testing.B) {
			a, ctx := testApp(), context.Background()
			save := demoReport()
			save.Source.Demo.Scale = scale
			save.SaveSnapshot = filepath.Join(b.TempDir(), "demo.snap")
			if _, err := a.Report(ctx, save); err != nil {
				b.Fatal(err)
			}
			req := DefaultReportRequest()
			req.Source = Source{File: save.SaveSnapshot}
			b.ReportAllocs()
			b.ResetTimer()
			var res *ReportResult
			for b.Loop() {
				var err error
				if res, err = a.Report(ctx, req); err != nil || res.Ledger == nil {
					b.Fatalf("report: %v (ledger: %v)", err, res.LedgerErr)
				}
			}
			b.ReportMetric(float64(len(res.Snapshot.Pods())), "pods")
		})
	}
}
