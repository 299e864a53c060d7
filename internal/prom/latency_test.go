package prom

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// A vLLM server that restarts mid-window starts its _bucket counters from
// 0 again: the hourly bucket counts are those of the history without the
// restart (a drop is a reset, the value after it the increment), and
// every latency histogram matches the simulator's.
func TestLatencyBucketsSurviveACounterReset(t *testing.T) {
	t.Parallel()
	h, err := simulated()
	if err != nil {
		t.Fatal(err)
	}
	srv := promtest.New(t, h.series)
	reset := 0
	srv.Edit(func(ss []promtest.Series) []promtest.Series {
		out := slices.Clone(ss)
		for i, s := range out {
			if s.Labels["__name__"] != "vllm:e2e_request_latency_seconds_bucket" || len(s.Samples) < 10 {
				continue
			}
			// the server restarts after its middle sample: from there on
			// each sample counts from 0
			mid := len(s.Samples) / 2
			base := s.Samples[mid].V
			xs := slices.Clone(s.Samples)
			for k := mid + 1; k < len(xs); k++ {
				xs[k] = wire.Sample{T: xs[k].T, V: xs[k].V - base}
			}
			out[i].Samples = xs
			if base > 0 {
				reset++
			}
		}
		return out
	})
	if reset == 0 {
		t.Fatal("no bucket counter to reset")
	}
	opts := testOptions(srv.URL, ReadRemote)
	opts.Window = h.truth.Window
	got, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	compared := 0
	for i := range h.truth.Hourly.Workloads {
		w := &h.truth.Hourly.Workloads[i]
		if w.Latency == nil {
			continue
		}
		g := got.Hourly.Find(w.Workload)
		if g == nil {
			t.Fatalf("%s: no hourly series", w.Workload)
		}
		compareLatency(t, w, g, seriesTolerance)
		compared++
	}
	t.Logf("%d bucket counters reset, %d histograms compared", reset, compared)
	if compared == 0 {
		t.Error("no latency histogram compared")
	}
}

// Without the bucket series the serving counts stay and the histograms
// are absent (nil, not zeros), and a note says what the flag loses.
func TestLatencyAbsentIsNilWithANote(t *testing.T) {
	t.Parallel()
	h, err := simulated()
	if err != nil {
		t.Fatal(err)
	}
	srv := promtest.New(t, h.series)
	srv.Edit(promtest.Drop("vllm:e2e_request_latency_seconds_bucket"))
	opts := testOptions(srv.URL, ReadRemote)
	opts.Window = h.truth.Window
	got, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	serving := 0
	for _, w := range got.Hourly.Workloads {
		if w.Latency != nil {
			t.Errorf("%s: a latency histogram without its series", w.Workload)
		}
		if w.Server == "vllm" && w.Requests != nil {
			serving++
		}
	}
	if serving == 0 {
		t.Error("no vLLM workload kept its request counts")
	}
	if !slices.ContainsFunc(got.Notes, func(n string) bool {
		return strings.Contains(n, "vllm:e2e_request_latency_seconds_bucket") && strings.Contains(n, "latency red flag has no data")
	}) {
		t.Errorf("no note on the missing histograms: %q", got.Notes)
	}
}
