package export

import (
	"github.com/gpuwise/gpuwise/internal/billing"

	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/gpuwise/gpuwise/internal/shareddata"
)

const sampleFile = "../../../../shared/data/focus/focus_1.0_sample.csv"

// The real FOCUS 1.0 sample (NULL and empty nulls, timestamps without T/Z,
// an un-prefixed Id column, enum case drift) reads end to end: row counts
// per provider as the data's README states them, and each provider's
// BilledCost, EffectiveCost and ListCost equal to sums taken straight from
// the CSV cells.
func TestSampleFOCUS(t *testing.T) {
	shareddata.Need(t, sampleFile)
	f, err := os.Open(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := billing.NewBill()
	if err := Read(b, "focus_1.0_sample.csv", f, DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	in := b.Inspect(nil)
	if in.Rows != 1000 || len(b.Files) != 1 || b.Files[0].Format != billing.FOCUS {
		t.Fatalf("rows %d, files %+v", in.Rows, b.Files)
	}
	want := independentSums(t)
	rows := map[string]int64{"AWS": 942, "Microsoft": 51, "Oracle": 7}
	if len(in.Providers) != 3 {
		t.Fatalf("providers %+v", in.Providers)
	}
	for _, p := range in.Providers {
		if p.Rows != rows[p.Provider] {
			t.Errorf("%s: %d rows, want %d", p.Provider, p.Rows, rows[p.Provider])
		}
		w := want[p.Provider]
		for i, got := range []float64{p.BilledCost, p.EffectiveCost, p.ListCost} {
			if math.Abs(got-w[i]) > 1e-6 {
				t.Errorf("%s: sum %d = %.9f, want %.9f", p.Provider, i, got, w[i])
			}
		}
	}
	if len(in.BillingPeriods) == 0 || in.BillingPeriods[0] != "2024-09" {
		t.Errorf("billing periods %v", in.BillingPeriods)
	}
	// Compute usage with a resource id: AWS instances, the Azure scale
	// set, OCI instances; no disks, storage or networking.
	for _, r := range b.Resources() {
		if r.Type == "Disk" || r.Type == "Storage account" {
			t.Errorf("%s (%s) counted as compute", r.ID, r.Type)
		}
	}
	if in.ComputeResources == 0 {
		t.Error("no compute resources found in the sample")
	}
}

// independentSums reads the sample with encoding/csv alone.
func independentSums(t *testing.T) map[string][3]float64 {
	f, err := os.Open(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	out := map[string][3]float64{}
	for _, r := range recs[1:] {
		s := out[r[col["ProviderName"]]]
		for i, c := range []string{"BilledCost", "EffectiveCost", "ListCost"} {
			if v, err := strconv.ParseFloat(r[col[c]], 64); err == nil {
				s[i] += v
			}
		}
		out[r[col["ProviderName"]]] = s
	}
	return out
}
