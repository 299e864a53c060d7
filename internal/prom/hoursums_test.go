package prom

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
)

// sameHours compares hourly values to float32 rounding, NaN equal to NaN.
var sameHours = cmp.Comparer(func(a, b float32) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Abs(float64(a-b)) <= 2e-6*math.Max(1, math.Max(math.Abs(float64(a)), math.Abs(float64(b))))
})

// With HourSums the read keeps the raw sums of its hourly series, which
// build into exactly those series, and the series do not change (the
// CLI never sets it). How interval reads' sums merge into the service's
// window: internal/serve TestLiveWindowHasTheHourlySeriesOfOneRead.
func TestHourSumsKeptBuildTheReadsSeries(t *testing.T) {
	t.Parallel()
	h, err := simulated()
	if err != nil {
		t.Fatal(err)
	}
	srv := promtest.New(t, h.series)
	w := cluster.Window{Start: h.truth.Window.Start.Add(30 * time.Hour), End: h.truth.Window.Start.Add(34 * time.Hour)}
	read := func(w cluster.Window, sums bool) *cluster.Snapshot {
		opts := testOptions(srv.URL, ReadRange)
		opts.Window, opts.HourSums = w, sums
		s, err := Build(context.Background(), opts)
		if err != nil {
			t.Fatalf("Build %s: %v", w, err)
		}
		return s
	}
	plain, kept := read(w, false), read(w, true)
	if plain.HourSums != nil || kept.HourSums == nil {
		t.Fatalf("sums kept: %v without the option, %v with it", plain.HourSums != nil, kept.HourSums != nil)
	}
	if len(plain.Hourly.Workloads) == 0 {
		t.Fatal("no hourly series in the window: the test compares nothing")
	}
	if diff := cmp.Diff(plain.Hourly, kept.Hourly, sameHours); diff != "" {
		t.Errorf("the option changed the series (-without +with):\n%s", diff)
	}
	built, err := kept.HourSums.Build(w)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain.Hourly, built, sameHours); diff != "" {
		t.Errorf("series built from the read's sums (-read +built):\n%s", diff)
	}
}
