package wire_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/prom/wire/wiretest"
)

// readAll decodes body, recording each series' labels and samples.
func readAll(t *testing.T, body []byte, q wire.ChunkedRead) (labels []map[string]string, samples map[string][]wire.Sample, err error) {
	t.Helper()
	samples = map[string][]wire.Sample{}
	ended := 0
	err = wire.DecodeChunkedRead(bytes.NewReader(body), q, func(l wire.Labels) wire.SampleSink {
		labels = append(labels, l.Map())
		key := l.Get("pod")
		got := samples[key]
		samples[key] = got
		return sinkFunc(func(xs []wire.Sample) { samples[key] = append(samples[key], xs...) }, &ended)
	})
	if err == nil && ended != len(labels) {
		t.Errorf("%d series ended, %d started", ended, len(labels))
	}
	return labels, samples, err
}

type funcSink struct {
	f     func([]wire.Sample)
	ended *int
}

func (s funcSink) Samples(xs []wire.Sample) { s.f(xs) }
func (s funcSink) End()                     { *s.ended++ }

func sinkFunc(f func([]wire.Sample), ended *int) wire.SampleSink { return funcSink{f, ended} }

// The answer of a real Prometheus 2.42.0 (remote read of one DCGM series
// over (1793523600, 1793527200] from the integration history) against
// what its /api/v1/query answered for the same range vector.
func TestDecodeChunkedReadFromPrometheus(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/remote_read_prometheus_2.42.bin")
	if err != nil {
		t.Fatal(err)
	}
	labels, got, err := readAll(t, b, wire.ChunkedRead{StartMs: 1793523600001, EndMs: 1793527200000})
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 1 || labels[0]["pod"] != "ner-extract-6s5zv8pv82-5jk26" || labels[0]["__name__"] != "DCGM_FI_PROF_GR_ENGINE_ACTIVE" || labels[0]["GPU_I_PROFILE"] != "3g.40gb" {
		t.Errorf("labels %v", labels)
	}
	vals := []float64{0.20936183543116185, 0.2151250856475641, 0.20518513542592973, 0.19860997133453206, 0.20387397885455044,
		0.22970805172861042, 0.20460337566884332, 0.23765123443769437, 0.23045872832978015, 0.23699541216215583,
		0.2094587698539733, 0.21186028060217688}
	var want []wire.Sample
	for i, v := range vals {
		want = append(want, wire.Sample{1793523900000 + int64(i)*300000, v})
	}
	if diff := cmp.Diff(want, got["ner-extract-6s5zv8pv82-5jk26"]); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
}

func TestDecodeChunkedReadFrames(t *testing.T) {
	t.Parallel()
	a := [][2]string{{"__name__", "m"}, {"pod", "a"}}
	c1 := wiretest.EncodeXOR([]wire.Sample{{0, 1}, {300000, 2}})
	c2 := wiretest.EncodeXOR([]wire.Sample{{600000, 3}, {900000, 4}})
	body := append(wiretest.Frame(wiretest.Series(a, wiretest.Chunk(0, 300000, c1))),
		wiretest.Frame(wiretest.Series(a, wiretest.Chunk(600000, 900000, c2)))...)
	labels, got, err := readAll(t, body, wire.ChunkedRead{StartMs: 1, EndMs: 900000})
	if err != nil {
		t.Fatal(err)
	}
	// A series split over two frames is one series; the sample at the
	// start is outside (start, end].
	if want := []wire.Sample{{300000, 2}, {600000, 3}, {900000, 4}}; len(labels) != 1 || !cmp.Equal(want, got["a"]) {
		t.Errorf("%d series, samples %v; want 1 series, %v", len(labels), got, want)
	}
	bad := bytes.Clone(body)
	bad[len(bad)-1] ^= 0xff
	if _, _, err := readAll(t, bad, wire.ChunkedRead{EndMs: 900000}); err == nil || !strings.Contains(err.Error(), "CRC32") {
		t.Errorf("corrupted frame: error %v, want a CRC32 mismatch", err)
	}
	if _, _, err := readAll(t, body[:len(body)-3], wire.ChunkedRead{EndMs: 900000}); err == nil {
		t.Error("truncated answer: no error")
	}
}

// TestDecodeChunkedReadEnds: with Ends, each series gets the first and
// the last of the samples the full decode hands on, and nothing between.
func TestDecodeChunkedReadEnds(t *testing.T) {
	t.Parallel()
	s := func(ts int64, v float64) wire.Sample { return wire.Sample{ts * 1000, v} }
	a := [][2]string{{"pod", "a"}}
	enc := wiretest.EncodeXOR
	body := wiretest.Frame(wiretest.Series(a, wiretest.Chunk(0, 600000, enc([]wire.Sample{s(0, 1), s(300, 2), s(600, 3)})),
		wiretest.Chunk(900000, 1500000, enc([]wire.Sample{s(900, 4), s(1200, 5), s(1500, 6)}))))
	// a's last chunk, in the next frame, ends in a stale marker; b's last
	// chunk holds only one; c has one sample; d's chunk is out of range.
	body = append(body, wiretest.Frame(wiretest.Series(a, wiretest.Chunk(1800000, 2100000, enc([]wire.Sample{s(1800, 7), s(2100, staleNaN)}))))...)
	body = append(body, wiretest.Frame(wiretest.Series([][2]string{{"pod", "b"}}, wiretest.Chunk(300000, 600000, enc([]wire.Sample{s(300, 8), s(600, 9)})),
		wiretest.Chunk(900000, 900000, enc([]wire.Sample{s(900, staleNaN)}))))...)
	body = append(body, wiretest.Frame(wiretest.Series([][2]string{{"pod", "c"}}, wiretest.Chunk(600000, 600000, enc([]wire.Sample{s(600, 10)}))))...)
	body = append(body, wiretest.Frame(wiretest.Series([][2]string{{"pod", "d"}}, wiretest.Chunk(9000000, 9000000, enc([]wire.Sample{s(9000, 11)}))))...)
	read := func(ends bool) map[string][]wire.Sample {
		_, got, err := readAll(t, body, wire.ChunkedRead{StartMs: 1, EndMs: 3000000, Ends: ends})
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range got {
			if len(v) == 0 {
				delete(got, k)
			}
		}
		return got
	}
	all, ends := read(false), read(true)
	want := map[string][]wire.Sample{}
	for pod, ss := range all {
		want[pod] = []wire.Sample{ss[0]}
		if len(ss) > 1 {
			want[pod] = append(want[pod], ss[len(ss)-1])
		}
	}
	if diff := cmp.Diff(map[string][]wire.Sample{"a": {s(300, 2), s(1800, 7)}, "b": {s(300, 8), s(600, 9)}, "c": {s(600, 10)}}, want); diff != "" {
		t.Fatalf("full decode's ends (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, ends); diff != "" {
		t.Errorf("ends (-want +got):\n%s", diff)
	}
}

// TestDecodeChunkedReadLimits: too many series, or a label past the
// limit, is a wire.LimitError naming the option, before anything big is made.
func TestDecodeChunkedReadLimits(t *testing.T) {
	t.Parallel()
	one := func(pod, value string) []byte {
		return wiretest.SeriesFrames([][2]string{{"pod", pod}, {"team", value}}, []wire.Sample{{1000, 1}})
	}
	three := slices.Concat(one("a", "x"), one("b", "x"), one("c", "x"))
	long := one("a", strings.Repeat("v", 5000))
	tests := []struct {
		name       string
		body       []byte
		lim        wire.Limits
		wantOption string
	}{
		{"three series, two allowed", three, wire.Limits{MaxSeries: 2}, "--prometheus-max-series"},
		{"three series, three allowed", three, wire.Limits{MaxSeries: 3}, ""},
		{"a 5000-byte label, 4096 allowed", long, wire.Limits{MaxLabelBytes: 4096}, "--prometheus-max-label-bytes"},
		{"a 5000-byte label, 5000 allowed", long, wire.Limits{MaxLabelBytes: 5000}, ""},
		{"a short label, 2 bytes allowed", one("a", "xyz"), wire.Limits{MaxLabelBytes: 2}, "--prometheus-max-label-bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := readAll(t, tt.body, wire.ChunkedRead{EndMs: math.MaxInt64, Limits: tt.lim})
			var lim *wire.LimitError
			if got := errors.As(err, &lim); got != (tt.wantOption != "") || got && lim.Option != tt.wantOption {
				t.Errorf("error %v, want a limit error naming %q: %v", err, tt.wantOption, tt.wantOption != "")
			}
		})
	}
}

// TestDecodeLabels checks the inline label reading against the general
// one: short and long (two-byte length) values, an empty value left out
// as Prometheus leaves it out, fields in the other order, and the keep
// filter.
func TestDecodeLabels(t *testing.T) {
	long := strings.Repeat("x", 300)
	var b []byte
	b = append(b, wiretest.Labels([][2]string{{"Hostname", "node-1"}, {"UUID", long}, {"empty", ""}})...)
	rev := wiretest.BytesField(wiretest.BytesField(nil, 2, []byte("p-0")), 1, []byte("pod")) // value first
	b = wiretest.BytesField(b, 1, rev)
	b = append(b, wiretest.Labels([][2]string{{long, "v"}})...)
	want := wire.Labels{{"Hostname", "node-1"}, {"UUID", long}, {"empty", ""}, {"pod", "p-0"}, {long, "v"}}
	decode := wire.DecodeLabels()
	for range 2 { // the second time from the previous series' strings
		got, err := decode(b, nil)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	keep := func(n []byte) bool { return string(n) == "pod" || string(n) == "UUID" }
	got, err := decode(b, keep)
	if want := (wire.Labels{{"UUID", long}, {"pod", "p-0"}}); err != nil || !slices.Equal(got, want) {
		t.Fatalf("with keep: got %q, %v; want %q", got, err, want)
	}
}

func TestReadRequestRoundTrip(t *testing.T) {
	t.Parallel()
	ms := []wire.Matcher{{wire.MatchEqual, "__name__", "container_cpu_usage_seconds_total"}, {wire.MatchNotEqual, "container", ""},
		{wire.MatchNotEqual, "container", "POD"}, {wire.MatchRegexp, "node", `gpu\-1|gpu\-2`}, {wire.MatchNotRegexp, "x", "é"}}
	qs, types, err := wiretest.DecodeReadRequest(wire.ReadRequest(1793491200001, 1793577600000, ms))
	want := []wiretest.ReadQuery{{Start: 1793491200001, End: 1793577600000, Matchers: ms}}
	if diff := cmp.Diff(want, qs); diff != "" || err != nil || !cmp.Equal(types, []uint64{1}) {
		t.Errorf("request (-want +got):\n%s\naccepted types %v, want [1]; err %v", diff, types, err)
	}
	// Several selectors: one query each, in order, over the same span.
	ms2 := []wire.Matcher{{wire.MatchEqual, "__name__", "m"}, {wire.MatchEqual, "Hostname", ""}}
	qs, _, err = wiretest.DecodeReadRequest(wire.ReadRequest(5, 9, ms, ms2))
	want = []wiretest.ReadQuery{{Start: 5, End: 9, Matchers: ms}, {Start: 5, End: 9, Matchers: ms2}}
	if diff := cmp.Diff(want, qs); diff != "" || err != nil {
		t.Errorf("two queries (-want +got):\n%s\nerr %v", diff, err)
	}
	// Requests longer than one snappy literal (64 KiB) split into several.
	many := []wire.Matcher{{wire.MatchRegexp, "node", strings.Repeat("n|", 70000)}}
	if qs, _, err := wiretest.DecodeReadRequest(wire.ReadRequest(0, 1, many)); err != nil || len(qs) != 1 || qs[0].Matchers[0] != many[0] {
		t.Errorf("a 140 KB request did not round-trip: %v", err)
	}
}

// FuzzDecodeChunkedRead: any answer is decoded or refused without a panic;
// samples handed on are in range and in time order, NaNs left out.
func FuzzDecodeChunkedRead(f *testing.F) {
	enc := wiretest.EncodeXOR
	f.Add(wiretest.SeriesFrames([][2]string{{"__name__", "m"}, {"pod", "a"}}, []wire.Sample{{0, 1}, {300000, 2}, {600000, math.NaN()}}), false)
	f.Add(slices.Concat(wiretest.Frame(wiretest.Series([][2]string{{"pod", "a"}}, wiretest.Chunk(0, 9, enc([]wire.Sample{{0, 1}, {9, 2}})))),
		wiretest.Frame(wiretest.Series([][2]string{{"pod", "a"}}, wiretest.Chunk(10, 20, enc([]wire.Sample{{10, 3}}))))), true)
	f.Add([]byte{5, 0, 0, 0, 0, 1}, false)
	f.Fuzz(func(t *testing.T, body []byte, ends bool) {
		q := wire.ChunkedRead{StartMs: 1, EndMs: 1 << 40, Ends: ends, Limits: wire.Limits{MaxSeries: 1000, MaxLabelBytes: 1 << 12}}
		wire.DecodeChunkedRead(bytes.NewReader(body), q, func(wire.Labels) wire.SampleSink {
			last := int64(math.MinInt64)
			return sinkFunc(func(xs []wire.Sample) {
				for _, x := range xs {
					if x.T < q.StartMs || x.T > q.EndMs || x.T <= last || x.V != x.V {
						t.Fatalf("sample %v out of range, order or a NaN (last %d)", x, last)
					}
					last = x.T
				}
			}, new(int))
		})
	})
}
