package sim

import (
	"math"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// stretch moves requests as a slower server's: 10 requests uniform in
// (1, 2] s, 1.5 times slower, lie uniform in (1.5, 3]: a third in
// (1, 2], two thirds in (2, 4]; the +Inf bucket keeps its own and gains what passes the
// largest bound.
func TestStretchByHand(t *testing.T) {
	bounds := []float64{1, 2, 4}
	got := stretch(bounds, []float32{0, 10, 0, 0}, 1.5)
	want := []float64{0, 10.0 / 3, 20.0 / 3, 0}
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-9 {
			t.Fatalf("stretch = %v, want %v", got, want)
		}
	}
	got = stretch(bounds, []float32{0, 0, 8, 2}, 1.5) // (2, 4] → (3, 6]: a third past 4
	if want := []float64{0, 0, 8.0 / 3, 2 + 16.0/3}; math.Abs(got[2]-want[2]) > 1e-9 || math.Abs(got[3]-want[3]) > 1e-9 {
		t.Fatalf("stretch = %v, want %v", got, want)
	}
}

// The simulated vLLM servers keep a latency histogram with vLLM's
// buckets whose median is the decode time of their tokens, the same
// every hour; Triton servers have none.
func TestServingLatencyHistograms(t *testing.T) {
	s, err := Generate(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		workload string
		median   float64 // lognormal median: tokens × latencyPerToken
	}{
		{"inference/Deployment/chat-llm", 220 * latencyPerToken},
		{"inference/Deployment/summarize-llm", 350 * latencyPerToken},
	} {
		wh := s.Hourly.Find(c.workload)
		if wh == nil || wh.Latency == nil {
			t.Fatalf("%s: no latency histogram", c.workload)
		}
		l := wh.Latency
		if l.Metric != VLLMLatencyMetric || len(l.Bounds) != len(VLLMLatencyBounds) || len(l.Counts) != wh.Hours()*l.Buckets() {
			t.Fatalf("%s: %s with %d bounds, %d counts for %d hours", c.workload, l.Metric, len(l.Bounds), len(l.Counts), wh.Hours())
		}
		sum, n := l.Sum(0, wh.Hours(), nil)
		if n == 0 || math.Abs(total(sum)-wh.Requests.Sum()) > 1e-3*wh.Requests.Sum() {
			t.Errorf("%s: %.0f requests in the histogram over %d h, %.0f counted", c.workload, total(sum), n, wh.Requests.Sum())
		}
		// The interpolated median lies in the true median's bucket.
		m := cluster.HistogramQuantile(0.5, l.Bounds, sum)
		lo, hi := bucketOf(l.Bounds, c.median)
		if m < lo || m > hi {
			t.Errorf("%s: p50 %.2f s outside the bucket (%g, %g] of the true median %.2f s", c.workload, m, lo, hi, c.median)
		}
	}
	if wh := s.Hourly.Find("inference/Deployment/embed-api"); wh == nil || wh.Server != cluster.ServerTriton || wh.Latency != nil {
		t.Errorf("embed-api (Triton): %+v, want serving series without a histogram", wh)
	}
}

func total(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}

func bucketOf(bounds []float64, x float64) (lo, hi float64) {
	for _, b := range bounds {
		if x <= b {
			return lo, b
		}
		lo = b
	}
	return lo, math.Inf(1)
}

// A backfiring change slows the servers: every quantile of the hours
// after it is BackfireLatency times the one before, to the buckets'
// resolution; a change that fits leaves them as they were.
func TestBackfireSlowsTheServers(t *testing.T) {
	const w = "inference/Deployment/summarize-llm"
	for _, c := range []struct {
		profile  string
		min, max float64
	}{{"7g.80gb", 1, 1}, {"1g.10gb", 1.2, 1.45}} {
		s, err := Generate(DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		at := s.Window.Start.Add(96 * 3600e9)
		var node string
		for _, p := range s.Pods {
			if p.WorkloadKey() == w && !p.Start.After(at) && (p.End.IsZero() || p.End.After(at)) {
				node = p.Node
			}
		}
		if err := Apply(s, []Change{{Kind: ToMIG, Workload: w, Node: node, Profile: c.profile, At: at}}); err != nil {
			t.Fatal(err)
		}
		wh := s.Hourly.Find(w)
		before, _ := wh.Latency.Sum(0, 96-wh.From, nil)
		after, _ := wh.Latency.Sum(96-wh.From, wh.Hours(), nil)
		for _, q := range []float64{0.5, 0.95, 0.99} {
			r := cluster.HistogramQuantile(q, wh.Latency.Bounds, after) / cluster.HistogramQuantile(q, wh.Latency.Bounds, before)
			if r < c.min-1e-4 || r > c.max+1e-4 {
				t.Errorf("%s: p%.0f after / before = %.3f, want %.2f to %.2f", c.profile, 100*q, r, c.min, c.max)
			}
		}
	}
}
