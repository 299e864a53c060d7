package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/gpuwise/gpuwise/internal/compare"
)

// Diff writes a before/after comparison in format f: the totals, then one
// row per key, largest idle-dollar change first. Unknown figures (no
// usage, no price, no OOM count) show as n/a, never 0.
func Diff(w io.Writer, d *compare.Diff, f Format, o Options) error {
	if d == nil {
		return fmt.Errorf("rendering comparison: no comparison")
	}
	narrow := diffDoc(d)
	narrow.width = o.Width
	return write(w, "comparison", f, o, docWriters(diffDoc(d), writers{
		Table: narrow.writeText,
		Wide:  diffDoc(d).writeText,
		JSON:  func(w io.Writer) error { return encodeJSON(w, d) },
		YAML:  func(w io.Writer) error { return encodeYAML(w, d) },
		CSV:   func(w io.Writer) error { return writeDiffCSV(w, d) },
	}))
}

var diffHeader = []string{"key", "GPU util before", "after", "change", "GPU-h before", "after",
	"idle $ before", "after", "change", "total $ change", "OOM kills before", "after"}

// diffKeep are the columns a narrow terminal keeps: the key and the
// idle dollars, the point of a comparison (largest idle change first).
var diffKeep = []int{0, 6, 7, 8, 9}

func diffDoc(d *compare.Diff) *doc {
	doc := &doc{title: "gpuwise comparison"}
	doc.linef("Before: %s", d.Before.Label)
	doc.linef("After:  %s", d.After.Label)
	doc.linef("Grouped by %s; the largest change in idle dollars first.", d.By)
	doc.line("")
	rows := [][]string{diffRow(d.Total)}
	for _, c := range d.Changes {
		rows = append(rows, diffRow(c))
	}
	doc.tableKeep(diffHeader, rows, diffKeep...)
	for _, n := range d.Notes {
		doc.item(n)
	}
	return doc
}

func diffRow(c compare.Change) []string {
	b, a := side(c.Before), side(c.After)
	return []string{c.Key, percent(b.Utilization), percent(a.Utilization), points(c.UtilizationPoints),
		hours(b.GPUAllocatedHours), hours(a.GPUAllocatedHours),
		moneyOr(b.IdleUSD, "n/a", money), moneyOr(a.IdleUSD, "n/a", money), signedMoney(c.IdleUSD), signedMoney(c.TotalUSD), countOrNA(b.OOMKills), countOrNA(a.OOMKills)}
}

// side is f, or empty figures for a key absent on that side.
func side(f *compare.Figures) compare.Figures {
	if f == nil {
		return compare.Figures{}
	}
	return *f
}

func points(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f pt", *v)
}

func countOrNA(v *int) string {
	if v == nil {
		return "n/a"
	}
	return strconv.Itoa(*v)
}

var diffCSVHeader = []string{"key", "gpu_utilization_before", "gpu_utilization_after", "gpu_utilization_change_points",
	"gpu_allocated_hours_before", "gpu_allocated_hours_after", "gpu_idle_usd_before", "gpu_idle_usd_after",
	"gpu_idle_usd_change", "total_usd_before", "total_usd_after", "total_usd_change", "oom_kills_before", "oom_kills_after"}

// writeDiffCSV writes one row per key plus "total", numbers exact, unknown
// cells empty.
func writeDiffCSV(w io.Writer, d *compare.Diff) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(diffCSVHeader); err != nil {
		return err
	}
	for _, c := range append([]compare.Change{d.Total}, d.Changes...) {
		b, a := side(c.Before), side(c.After)
		rec := []string{c.Key, optF(b.Utilization), optF(a.Utilization), optF(c.UtilizationPoints),
			exact(b.GPUAllocatedHours), exact(a.GPUAllocatedHours), optF(b.IdleUSD), optF(a.IdleUSD), optF(c.IdleUSD),
			optF(b.TotalUSD), optF(a.TotalUSD), optF(c.TotalUSD), optI(b.OOMKills), optI(a.OOMKills)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func optF(v *float64) string {
	if v == nil {
		return ""
	}
	return exact(*v)
}

func optI(v *int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(*v)
}
