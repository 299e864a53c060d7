package history

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cost"
)

// BenchmarkLowUtilWeek reads a week of unit rows (GPUWISE_BENCH_UNITS
// units, 1,000 unless set; 10,000 is the 10k-GPU demo's 1.7 million
// rows) one at a time into the low-utilization list, as History.LowUtil
// does: rows/s and the heap the list holds at its end (HeapInuse after a
// GC, the rows not among it).
func BenchmarkLowUtilWeek(b *testing.B) {
	n := 1000
	if v := os.Getenv("GPUWISE_BENCH_UNITS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	s, err := Open(ctx, InMemory)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	hist := make([]byte, 0, 9*8)
	for k := 0; k < 8; k++ {
		var h [101]float64
		h[k*7] = 400
		hist = append(hist, encodeHist(&h)...)
	}
	if err := s.tx(ctx, func(tx *sql.Tx) error {
		put, err := tx.PrepareContext(ctx, `INSERT INTO unit_hourly (cluster, unit, bucket, gpu_usd_per_hour, node, gpu_model, kind, profile,
			fraction, life_seconds, held_seconds, measured_seconds, active_seconds, unmeasured, holders, hist)
			VALUES ('c', ?, ?, 2.5, ?, 'H100-80GB', 'whole', '', 1, 3600, 3200, 3200, 1000, 0, 'ml/Job/a\nml/Job/b', ?)`)
		if err != nil {
			return err
		}
		defer put.Close()
		for hr := 0; hr < 168; hr++ {
			for u := 0; u < n; u++ {
				if _, err := put.ExecContext(ctx, fmt.Sprintf("node-%05d/gpu%d", u/8, u%8), t0.Add(time.Duration(hr)*time.Hour).Unix(),
					fmt.Sprintf("node-%05d", u/8), hist); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var heap uint64
	for i := 0; i < b.N; i++ {
		l := cost.NewLowUtilBuilder(cost.LowUtilOptions{Threshold: 0.3, MinHours: 6})
		rows := 0
		if err := s.EachUnit(ctx, "c", t0, t0.Add(168*time.Hour), func(r *UnitRow) error {
			rows++
			l.Add(&r.UnitHours)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if rows != 168*n {
			b.Fatalf("%d rows, want %d", rows, 168*n)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		heap = m.HeapInuse
		if len(l.List().Units) != n {
			b.Fatalf("want every unit listed")
		}
	}
	b.ReportMetric(float64(168*n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
}
