package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/shareddata"
)

// The committed catalog is what gencatalog makes of the shared data.
func TestCatalogUpToDate(t *testing.T) {
	in := filepath.Join("..", "..", "..", "shared", "data", "prices", "gpu_prices.csv")
	shareddata.Need(t, in)
	out := filepath.Join(t.TempDir(), "catalog.csv")
	if err := run(Options{In: in, Out: out}, io.Discard); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "internal", "pricing", "data", "catalog.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("internal/pricing/data/catalog.csv is stale; run go run ./hack/gencatalog")
	}
}

func TestReadSourceRejects(t *testing.T) {
	header := "cloud,region,instance_type,gpu_model,gpu_count,gpu_memory_gb,vcpus,memory_gib," +
		"on_demand_usd_hr,spot_usd_hr,on_demand_as_of,spot_as_of,source\n"
	tests := []struct {
		name, row, want string
	}{{
		name: "unknown source",
		row:  "aws,us-east-1,p5.48xlarge,H100,8,80,192,2048,55.04,,2026-01-21,,somewhere new",
		want: `line 2: unknown source "somewhere new"`,
	}, {
		name: "memory-variant model without memory",
		row:  "aws,us-east-1,p5.48xlarge,H100,8,,192,2048,55.04,,2026-01-21,,tsaol/aws-gpu data/all_gpu_instances.js (vantage-derived)",
		want: "line 2: aws p5.48xlarge: H100 needs a memory size",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readSource(strings.NewReader(header + tt.row))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("readSource error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
