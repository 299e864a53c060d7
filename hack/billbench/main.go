// Command billbench writes a generated FOCUS export (Parquet or CSV) for
// the bill-reading benchmark (make bench-bill, docs/performance.md):
// -rows rows of -resources p5.48xlarge instances billed hourly from the
// demo window's start.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	rows := flag.Int("rows", 10_000_000, "rows to write")
	resources := flag.Int("resources", 13_900, "instances billed each hour")
	format := flag.String("format", "parquet", "parquet or csv")
	out := flag.String("o", "", "file to write")
	flag.Parse()
	if *out == "" || *rows < 1 || *resources < 1 {
		fmt.Fprintln(os.Stderr, "billbench: -o FILE, -rows ≥ 1 and -resources ≥ 1 are required")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "billbench:", err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	g := generated{Rows: *rows, Resources: *resources, Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), USDPerHour: 35.776}
	switch *format {
	case "parquet":
		err = writeFOCUSParquet(w, g)
	case "csv":
		err = writeFOCUSCSV(w, g)
	default:
		err = fmt.Errorf("format %q is not parquet or csv", *format)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "billbench:", err)
		os.Exit(1)
	}
}
