package render

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/gpuwise/gpuwise/internal/idlecause"
)

// sampleCauses is a hand-made split: a CPU-starved batch job, a notebook
// with no work, and an unpriced job of unknown cause; one more workload
// left out.
func sampleCauses() *idlecause.Result {
	share := func(c idlecause.Cause, s, h float64, usd *float64, hrs int) idlecause.Share {
		out := idlecause.Share{Cause: c, Share: s, GPUHours: h, Hours: hrs}
		if usd != nil {
			out.USD, out.MonthlyUSD = ptr(*usd), ptr(*usd*monthFactor())
		}
		return out
	}
	return &idlecause.Result{
		Policy: idlecause.DefaultPolicy(), SeriesIdleThreshold: 0.1, IdleGPUHours: 40, IdleUSD: 100,
		Totals: []idlecause.Share{
			share(idlecause.CPUStarved, 0.2, 8, ptr(40), 8), share(idlecause.InputBound, 0, 0, ptr(0), 0),
			share(idlecause.MemoryPressured, 0, 0, ptr(0), 0), share(idlecause.NoWork, 0.5, 20, ptr(60), 20),
			share(idlecause.Unknown, 0.3, 12, nil, 12),
		},
		Workloads: []idlecause.Workload{
			{Workload: "notebooks/Pod/jupyter-ann", IdleGPUHours: 20, IdleUSD: ptr(60), MonthlyUSD: ptr(60 * monthFactor()), Main: idlecause.NoWork,
				Causes:   []idlecause.Share{share(idlecause.NoWork, 1, 20, ptr(60), 20)},
				Evidence: "20 idle hour(s): CPU, memory and PCIe receive quiet while the GPU idled"},
			{Workload: "batch/CronJob/score", IdleGPUHours: 8, IdleUSD: ptr(40), MonthlyUSD: ptr(40 * monthFactor()), Main: idlecause.CPUStarved,
				Causes:   []idlecause.Share{share(idlecause.CPUStarved, 1, 8, ptr(40), 8)},
				Evidence: "8 idle hour(s): CPU-starved, throttled in 50% of CFS periods, CPU at 99% of its limit"},
			{Workload: "research/Job/sweep", IdleGPUHours: 12, Main: idlecause.Unknown,
				Causes:   []idlecause.Share{share(idlecause.Unknown, 1, 12, nil, 12)},
				Evidence: "12 idle hour(s): unknown, missing PCIe receive (pcie_rx_bytes_per_second)"},
		},
		MoreWorkloads: 1,
		Notes:         []string{"1 workload(s) ran on unpriced nodes only: their idle GPU-hours are split by cause, their dollars are absent (not $0)"},
	}
}

func TestWhyGPUsIdleGolden(t *testing.T) {
	for _, tt := range []struct {
		file   string
		format Format
	}{{"why.txt", Table}, {"why.md", Markdown}, {"why.html", HTML}, {"why.json", JSON}} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			var got bytes.Buffer
			if err := Report(&got, sampleReport(), tt.format, Options{IdleCauses: sampleCauses()}); err != nil {
				t.Fatalf("Report: %v", err)
			}
			checkGolden(t, filepath.Join("testdata", tt.file), got.Bytes())
		})
	}
}
