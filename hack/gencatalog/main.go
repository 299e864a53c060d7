package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
)

// Options are the command's flags.
type Options struct {
	In  string
	Out string
}

func main() {
	var opts Options
	flag.StringVar(&opts.In, "in", "../shared/data/prices/gpu_prices.csv", "source price CSV")
	flag.StringVar(&opts.Out, "out", "internal/pricing/data/catalog.csv", "catalog CSV to write")
	flag.Parse()
	if err := run(opts, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gencatalog:", err)
		os.Exit(1)
	}
}

func run(opts Options, log io.Writer) error {
	src, err := os.ReadFile(opts.In)
	if err != nil {
		return fmt.Errorf("reading source: %w", err)
	}
	rows, err := readSource(bytes.NewReader(src))
	if err != nil {
		return fmt.Errorf("reading %s: %w", opts.In, err)
	}
	var out bytes.Buffer
	if err := writeCatalog(&out, rows); err != nil {
		return fmt.Errorf("writing catalog: %w", err)
	}
	if err := os.WriteFile(opts.Out, out.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing catalog: %w", err)
	}
	fmt.Fprintf(log, "wrote %d rows to %s\n", len(rows), opts.Out)
	return nil
}
