package prom

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/api"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// scaleMetric multiplies every sample of metric by k.
func scaleMetric(metric string, k float64) func([]promtest.Series) []promtest.Series {
	return func(ss []promtest.Series) []promtest.Series {
		for i := range ss {
			if ss[i].Labels["__name__"] == metric {
				xs := append(ss[i].Samples[:0:0], ss[i].Samples...)
				for j := range xs {
					xs[j].V *= k
				}
				ss[i].Samples = xs
			}
		}
		return ss
	}
}

// TestM3OutOfRangeValuesAreLeftOutAndNoted (issue 31 M3): a percent-scaled
// activity (40 for 40 %) is not read as 100 % busy, a negative working set
// not as 0 bytes: the samples are left out, the holding and the container
// count as unmeasured, and a note says how many samples of which metric
// were left out and why.
func TestM3OutOfRangeValuesAreLeftOutAndNoted(t *testing.T) {
	t.Parallel()
	for _, read := range []string{ReadRemote, ReadRaw} {
		t.Run(read, func(t *testing.T) {
			t.Parallel()
			srv := promtest.New(t, promtest.Cluster())
			srv.Edit(scaleMetric("DCGM_FI_PROF_GR_ENGINE_ACTIVE", 100))
			srv.Edit(scaleMetric("container_memory_working_set_bytes", -1))
			s, err := buildFrom(t, srv, read)
			if err != nil {
				t.Fatal(err)
			}
			train := pod(s, "ml/train-0")
			if train == nil || len(train.GPUs) != 1 {
				t.Fatalf("train-0 %+v: want one GPU", train)
			}
			if a := train.GPUs[0].Activity; a != nil && a.Seconds > 0 {
				t.Errorf("train-0's GPU measured for %.0f s from out-of-range samples (mean %.3f)", a.Seconds, a.Mean())
			}
			if m := train.Containers[0].Memory; m != nil && m.Samples > 0 {
				t.Errorf("train-0's memory measured from negative samples: %+v", m)
			}
			notes := strings.Join(s.Notes, "\n")
			for _, want := range []string{
				"sample(s) of DCGM_FI_PROF_GR_ENGINE_ACTIVE outside [0, 1.000001] (the first: ",
				"a percent-scaled recording rule?) were left out",
				"sample(s) of container_memory_working_set_bytes outside [0, 1.1259e+15] (the first: -2.147484e+09) were left out",
			} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes lack %q:\n%s", want, notes)
				}
			}
		})
	}
}

// TestM4DeadlineBoundsTheRead (issue 31 M4): a server that answers the
// probe and the facts but hangs on usage requests ends the read at
// Options.Deadline, as Unreachable naming the deadline, not after the
// request timeout times the attempts.
func TestM4DeadlineBoundsTheRead(t *testing.T) {
	t.Parallel()
	srv := promtest.New(t, promtest.Cluster())
	srv.Inject(func(w http.ResponseWriter, r *http.Request, _ int64, metric string) bool {
		if !strings.HasPrefix(metric, "container_") {
			return false
		}
		<-r.Context().Done()
		return true
	})
	opts := testOptions(srv.URL, ReadRemote)
	opts.Deadline = 2 * time.Second
	start := time.Now()
	_, err := Build(context.Background(), opts)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Kind != api.Unreachable || !strings.Contains(err.Error(), "longer than the 2s deadline (--prometheus-deadline)") {
		t.Errorf("Build: %v; want Unreachable naming the deadline", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the read ended after %s; want about the 2 s deadline", took)
	}
}

// TestM3ServingValuesAreRangeChecked: a negative inference-server gauge
// or counter is left out and noted, like the exporters' values.
func TestM3ServingValuesAreRangeChecked(t *testing.T) {
	t.Parallel()
	series := promtest.Cluster()
	at := func(m string, v float64) promtest.Series {
		s := promtest.Series{Labels: map[string]string{"__name__": m, "namespace": "ml", "pod": "train-0"}}
		for ts := promtest.Window.Start; ts.Before(promtest.Window.End); ts = ts.Add(5 * time.Minute) {
			s.Samples = append(s.Samples, wire.Sample{T: ts.UnixMilli(), V: v})
		}
		return s
	}
	series = append(series, at("vllm:num_requests_waiting", -2), at("vllm:request_success_total", -7))
	s, err := buildFrom(t, promtest.New(t, series), ReadRemote)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, m := range []string{"vllm:num_requests_waiting", "vllm:request_success_total"} {
		if !strings.Contains(notes, "sample(s) of "+m+" outside [0, ∞]") {
			t.Errorf("notes lack %s's out-of-range samples:\n%s", m, notes)
		}
	}
}
