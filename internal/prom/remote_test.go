package prom

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// bitWriter and encodeXOR write Prometheus' XOR chunk format for tests
// (see xor.go for the layout).
type bitWriter struct {
	b []byte
	n uint // bits written
}

func (w *bitWriter) write(v uint64, n uint) {
	for i := int(n) - 1; i >= 0; i-- {
		if w.n%8 == 0 {
			w.b = append(w.b, 0)
		}
		if v>>uint(i)&1 == 1 {
			w.b[len(w.b)-1] |= 1 << (7 - w.n%8)
		}
		w.n++
	}
}

type sample struct {
	T int64
	V float64
}

func encodeXOR(t testing.TB, samples []sample) []byte {
	t.Helper()
	w := &bitWriter{}
	w.write(uint64(len(samples)), 16)
	var prevT, prevDelta int64
	var prevV uint64
	leading, trailing := uint(0xff), uint(0)
	for i, s := range samples {
		vb := math.Float64bits(s.V)
		switch i {
		case 0:
			for _, c := range binary.AppendVarint(nil, s.T) {
				w.write(uint64(c), 8)
			}
			w.write(vb, 64)
			prevT, prevV = s.T, vb
			continue
		case 1:
			prevDelta = s.T - prevT
			for _, c := range binary.AppendUvarint(nil, uint64(prevDelta)) {
				w.write(uint64(c), 8)
			}
		default:
			delta := s.T - prevT
			dod := delta - prevDelta
			in := func(n uint) bool { return -(1<<(n-1))+1 <= dod && dod <= 1<<(n-1) }
			switch {
			case dod == 0:
				w.write(0, 1)
			case in(14):
				w.write(0b10, 2)
				w.write(uint64(dod), 14)
			case in(17):
				w.write(0b110, 3)
				w.write(uint64(dod), 17)
			case in(20):
				w.write(0b1110, 4)
				w.write(uint64(dod), 20)
			default:
				w.write(0b1111, 4)
				w.write(uint64(dod), 64)
			}
			prevDelta = delta
		}
		prevT = s.T
		x := vb ^ prevV
		prevV = vb
		if x == 0 {
			w.write(0, 1)
			continue
		}
		w.write(1, 1)
		l, tr := uint(bits.LeadingZeros64(x)), uint(bits.TrailingZeros64(x))
		if l >= 32 {
			l = 31
		}
		if leading != 0xff && l >= leading && tr >= trailing {
			w.write(0, 1)
			w.write(x>>trailing, 64-leading-trailing)
			continue
		}
		leading, trailing = l, tr
		w.write(1, 1)
		w.write(uint64(l), 5)
		sig := 64 - l - tr
		w.write(uint64(sig), 6) // 64 is written as 0
		w.write(x>>tr, sig)
	}
	return w.b
}

func decodeAll(t *testing.T, data []byte) []sample {
	t.Helper()
	var got []sample
	if err := decodeXOR(data, func(ts int64, v float64) { got = append(got, sample{ts, v}) }); err != nil {
		t.Fatal(err)
	}
	return got
}

var staleNaN = math.Float64frombits(0x7ff0000000000002)

func TestDecodeXOR(t *testing.T) {
	t.Parallel()
	const base = int64(1793491200000)
	tests := map[string][]sample{
		"one sample":      {{base, 0.25}},
		"negative start":  {{-5000, -1.5}, {-4000, 2}},
		"two samples":     {{base, 1}, {base + 300000, 2}},
		"repeated values": {{base, 42}, {base + 300000, 42}, {base + 600000, 42}, {base + 900000, 42}},
		"regular step": {{base, 0.1}, {base + 300000, 0.2}, {base + 600000, 0.3}, {base + 900000, 0.35},
			{base + 1200000, 0.35}, {base + 1500000, 1e9}, {base + 1800000, -1e-9}},
		"dod buckets both signs": {{base, 1}, {base + 300000, 2}, {base + 600001, 3}, {base + 900001, 4},
			{base + 1200000 + 8192, 5}, {base + 1500000, 6}, {base + 1800000 + 65536, 7}, {base + 2100000, 8},
			{base + 2400000 + 524288, 9}, {base + 2700000, 10}, {base + 3000000 + 1<<40, 11}, {base + 3300000 + 1<<40, 12},
			{base + 3300001 + 1<<40, 13}},
		"bucket edges": {{0, 1}, {1000, 1}, {1000 + 1000 + 8192, 1}, {3000 + 8192 + 8192 - 8191, 1},
			{4000 + 8192 + 8192 - 8191 + 65536, 1}, {5000 + 8192 + 8192 - 8191 + 65536 - 65535, 1}},
		"large first delta": {{0, 1}, {1 << 50, 2}, {1<<50 + 1, 3}},
		"all bits change": {{base, math.Float64frombits(0)}, {base + 1, math.Float64frombits(math.MaxUint64)},
			{base + 2, math.Float64frombits(1)}, {base + 3, math.Float64frombits(1 << 63)}},
		"counter":       {{base, 12345.678}, {base + 300000, 12400.1}, {base + 600000, 12500.9}, {base + 900000, 3.2}},
		"stale and NaN": {{base, 1}, {base + 300000, staleNaN}, {base + 600000, math.NaN()}, {base + 900000, 2}},
	}
	for name, samples := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := decodeAll(t, encodeXOR(t, samples))
			if diff := cmp.Diff(samples, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("samples (-want +got):\n%s", diff)
			}
			if name == "stale and NaN" && math.Float64bits(got[1].V) != math.Float64bits(staleNaN) {
				t.Errorf("stale marker bits %x, want %x", math.Float64bits(got[1].V), math.Float64bits(staleNaN))
			}
		})
	}
}

func TestDecodeXORMalformed(t *testing.T) {
	t.Parallel()
	good := encodeXOR(t, []sample{{0, 1}, {1000, 2}, {2000, 3}, {3000, 4}})
	for n := 0; n < len(good)-1; n++ {
		if err := decodeXOR(good[:n], func(int64, float64) {}); err == nil {
			t.Errorf("chunk cut to %d of %d bytes: no error", n, len(good))
		}
	}
	if got := decodeAll(t, []byte{0, 0}); len(got) != 0 {
		t.Errorf("empty chunk gave %v", got)
	}
}

// The answer of a real Prometheus 2.42.0 (remote read of one DCGM series
// over (1793523600, 1793527200] from the integration history) against
// what its /api/v1/query answered for the same range vector.
func TestDecodeChunkedReadFromPrometheus(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/remote_read_prometheus_2.42.bin")
	if err != nil {
		t.Fatal(err)
	}
	var labels []map[string]string
	var got []sample
	err = decodeChunkedRead(bytes.NewReader(b), 1793523600001, 1793527200000, func(l map[string]string) PointFunc {
		labels = append(labels, l)
		return func(ts, v float64) { got = append(got, sample{int64(math.Round(ts * 1000)), v}) }
	}, false, false, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 1 || labels[0]["pod"] != "ner-extract-6s5zv8pv82-5jk26" || labels[0]["__name__"] != "DCGM_FI_PROF_GR_ENGINE_ACTIVE" || labels[0]["GPU_I_PROFILE"] != "3g.40gb" {
		t.Errorf("labels %v", labels)
	}
	vals := []float64{0.20936183543116185, 0.2151250856475641, 0.20518513542592973, 0.19860997133453206, 0.20387397885455044,
		0.22970805172861042, 0.20460337566884332, 0.23765123443769437, 0.23045872832978015, 0.23699541216215583,
		0.2094587698539733, 0.21186028060217688}
	var want []sample
	for i, v := range vals {
		want = append(want, sample{1793523900000 + int64(i)*300000, v})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
}

// Helpers that write remote-read answers.
func pbLabels(l [][2]string) []byte {
	var b []byte
	for _, p := range l {
		b = appendBytesField(b, 1, appendBytesField(appendBytesField(nil, 1, []byte(p[0])), 2, []byte(p[1])))
	}
	return b
}

func pbChunk(minT, maxT int64, data []byte) []byte {
	var c []byte
	c = appendVarintField(c, 1, uint64(minT))
	c = appendVarintField(c, 2, uint64(maxT))
	c = appendVarintField(c, 3, 1)
	return appendBytesField(c, 4, data)
}

func pbSeries(l [][2]string, chunks ...[]byte) []byte {
	s := pbLabels(l)
	for _, c := range chunks {
		s = appendBytesField(s, 2, c)
	}
	return appendBytesField(nil, 1, s)
}

func frame(payload []byte) []byte {
	f := binary.AppendUvarint(nil, uint64(len(payload)))
	f = binary.BigEndian.AppendUint32(f, crc32.Checksum(payload, castagnoli))
	return append(f, payload...)
}

func TestDecodeChunkedReadFrames(t *testing.T) {
	t.Parallel()
	a := [][2]string{{"__name__", "m"}, {"pod", "a"}}
	c1 := encodeXOR(t, []sample{{0, 1}, {300000, 2}})
	c2 := encodeXOR(t, []sample{{600000, 3}, {900000, 4}})
	body := append(frame(pbSeries(a, pbChunk(0, 300000, c1))), frame(pbSeries(a, pbChunk(600000, 900000, c2)))...)
	calls := 0
	var got []sample
	err := decodeChunkedRead(bytes.NewReader(body), 1, 900000, func(map[string]string) PointFunc {
		calls++
		return func(ts, v float64) { got = append(got, sample{int64(ts * 1000), v}) }
	}, false, false, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A series split over two frames is one series; the sample at the
	// start is outside (start, end].
	if want := []sample{{300000, 2}, {600000, 3}, {900000, 4}}; calls != 1 || !cmp.Equal(want, got) {
		t.Errorf("%d series, samples %v; want 1 series, %v", calls, got, want)
	}

	bad := bytes.Clone(body)
	bad[len(bad)-1] ^= 0xff
	err = decodeChunkedRead(bytes.NewReader(bad), 0, 900000, func(map[string]string) PointFunc { return nil }, false, false, nil, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "CRC32") {
		t.Errorf("corrupted frame: error %v, want a CRC32 mismatch", err)
	}
	err = decodeChunkedRead(bytes.NewReader(body[:len(body)-3]), 0, 900000, func(map[string]string) PointFunc { return nil }, false, false, nil, nil, nil)
	if err == nil {
		t.Error("truncated answer: no error")
	}
}

// TestDecodeChunkedReadEnds: with ends, each series gets the first and
// the last of the samples the full decode hands on, and nothing between.
func TestDecodeChunkedReadEnds(t *testing.T) {
	t.Parallel()
	s := func(ts int64, v float64) sample { return sample{ts * 1000, v} }
	a := [][2]string{{"pod", "a"}}
	body := frame(pbSeries(a, pbChunk(0, 600000, encodeXOR(t, []sample{s(0, 1), s(300, 2), s(600, 3)})),
		pbChunk(900000, 1500000, encodeXOR(t, []sample{s(900, 4), s(1200, 5), s(1500, 6)}))))
	// a's last chunk, in the next frame, ends in a stale marker; b's last
	// chunk holds only one; c has one sample; d's chunk is out of range.
	body = append(body, frame(pbSeries(a, pbChunk(1800000, 2100000, encodeXOR(t, []sample{s(1800, 7), s(2100, staleNaN)}))))...)
	body = append(body, frame(pbSeries([][2]string{{"pod", "b"}}, pbChunk(300000, 600000, encodeXOR(t, []sample{s(300, 8), s(600, 9)})),
		pbChunk(900000, 900000, encodeXOR(t, []sample{s(900, staleNaN)}))))...)
	body = append(body, frame(pbSeries([][2]string{{"pod", "c"}}, pbChunk(600000, 600000, encodeXOR(t, []sample{s(600, 10)}))))...)
	body = append(body, frame(pbSeries([][2]string{{"pod", "d"}}, pbChunk(9000000, 9000000, encodeXOR(t, []sample{s(9000, 11)}))))...)
	read := func(ends bool) map[string][]sample {
		got := map[string][]sample{}
		err := decodeChunkedRead(bytes.NewReader(body), 1, 3000000, func(l map[string]string) PointFunc {
			pod := l["pod"]
			return func(ts, v float64) { got[pod] = append(got[pod], sample{int64(math.Round(ts * 1000)), v}) }
		}, ends, false, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	all, ends := read(false), read(true)
	want := map[string][]sample{}
	for pod, ss := range all {
		want[pod] = []sample{ss[0]}
		if len(ss) > 1 {
			want[pod] = append(want[pod], ss[len(ss)-1])
		}
	}
	if diff := cmp.Diff(map[string][]sample{"a": {s(300, 2), s(1800, 7)}, "b": {s(300, 8), s(600, 9)}, "c": {s(600, 10)}}, want); diff != "" {
		t.Fatalf("full decode's ends (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, ends); diff != "" {
		t.Errorf("ends (-want +got):\n%s", diff)
	}
}

// readSnappyLiterals decodes a snappy block made of literals only.
func readSnappyLiterals(t *testing.T, b []byte) []byte {
	t.Helper()
	n, k := binary.Uvarint(b)
	b = b[k:]
	var out []byte
	for len(b) > 0 {
		tag := b[0]
		if tag&3 != 0 {
			t.Fatalf("tag %x is not a literal", tag)
		}
		l := int(tag>>2) + 1
		b = b[1:]
		switch tag >> 2 {
		case 60:
			l, b = int(b[0])+1, b[1:]
		case 61:
			l, b = int(binary.LittleEndian.Uint16(b))+1, b[2:]
		}
		out, b = append(out, b[:l]...), b[l:]
	}
	if uint64(len(out)) != n {
		t.Fatalf("snappy length %d, header says %d", len(out), n)
	}
	return out
}

func TestSnappyLiteral(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 60, 61, 256, 65536, 65537, 200000} {
		in := make([]byte, n)
		for i := range in {
			in[i] = byte(i * 7)
		}
		if got := readSnappyLiterals(t, snappyLiteral(in)); !bytes.Equal(got, in) {
			t.Errorf("%d bytes: round trip differs", n)
		}
	}
}

type readQuery struct {
	Start, End int64
	Matchers   []Matcher
}

// decodeReadRequest reads back what encodeReadRequest wrote.
func decodeReadRequest(t *testing.T, b []byte) (qs []readQuery, types []uint64) {
	t.Helper()
	fields := func(b []byte, each func(pbField)) {
		for len(b) > 0 {
			f, rest, err := nextField(b)
			if err != nil {
				t.Fatal(err)
			}
			each(f)
			b = rest
		}
	}
	fields(b, func(f pbField) {
		switch f.num {
		case 1:
			var q readQuery
			fields(f.b, func(g pbField) {
				switch g.num {
				case 1:
					q.Start = int64(g.v)
				case 2:
					q.End = int64(g.v)
				case 3:
					var m Matcher
					fields(g.b, func(h pbField) {
						switch h.num {
						case 1:
							m.Type = int(h.v)
						case 2:
							m.Name = string(h.b)
						case 3:
							m.Value = string(h.b)
						}
					})
					q.Matchers = append(q.Matchers, m)
				}
			})
			qs = append(qs, q)
		case 2:
			for p := f.b; len(p) > 0; {
				v, n := binary.Uvarint(p)
				types, p = append(types, v), p[n:]
			}
		}
	})
	return qs, types
}

func TestReadRequestRoundTrip(t *testing.T) {
	t.Parallel()
	ms := []Matcher{{MatchEqual, "__name__", "container_cpu_usage_seconds_total"}, {MatchNotEqual, "container", ""},
		{MatchNotEqual, "container", "POD"}, {MatchRegexp, "node", `gpu\-1|gpu\-2`}, {MatchNotRegexp, "x", "é"}}
	qs, types := decodeReadRequest(t, encodeReadRequest(1793491200001, 1793577600000, ms))
	want := []readQuery{{1793491200001, 1793577600000, ms}}
	if diff := cmp.Diff(want, qs); diff != "" || !cmp.Equal(types, []uint64{1}) {
		t.Errorf("request (-want +got):\n%s\naccepted types %v, want [1]", diff, types)
	}
}

// remoteServer answers remote read with body, and records the request.
func remoteServer(t *testing.T, status int, contentType string, body []byte) (*httptest.Server, *http.Request, *[]byte) {
	t.Helper()
	var got http.Request
	var req []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = *r.Clone(context.Background())
		req, _ = io.ReadAll(r.Body)
		if r.URL.Path != "/api/v1/read" {
			// JSON API: the density probe finds one sample a step.
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"12"]]}]}}`)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &got, &req
}

// The same samples as TestRawQueryWeightsSamples, read by remote read,
// weigh the same.
func TestRemoteQueryWeightsSamples(t *testing.T) {
	t.Parallel()
	s := func(ts int64, v float64) sample { return sample{ts * 1000, v} }
	var body []byte
	for _, sr := range []struct {
		pod string
		s   []sample
	}{
		{"a", []sample{s(0, 1), s(300, 2), s(600, 3), s(1500, 4), s(1800, 5)}},
		{"skip", []sample{s(0, 9)}},
		{"fast", []sample{s(0, 1), s(30, 2), s(60, staleNaN), s(90, 3)}},
		{"alone", []sample{s(0, 7)}},
	} {
		body = append(body, frame(pbSeries([][2]string{{"pod", sr.pod}}, pbChunk(sr.s[0].T, sr.s[len(sr.s)-1].T, encodeXOR(t, sr.s))))...)
	}
	srv, req, reqBody := remoteServer(t, 200, streamedChunksType, body)
	c, err := New(Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var got []weighted
	committed := false
	ms := []Matcher{{MatchEqual, "__name__", "m"}}
	// From is a step before the first sample: the samples read are in
	// (From, To].
	errs := c.Run(context.Background(), []Task{{Query: "m[35m]", From: time.Unix(-1, 0), To: time.Unix(1800, 0), Raw: true, Remote: true,
		Matchers: ms, Cap: 5 * time.Minute, Open: func() Batch { return recBatch{&got, &committed} }}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []weighted{
		{"a", 1, 300}, {"a", 2, 300}, {"a", 3, 300}, {"a", 4, 300}, {"a", 5, 300},
		{"fast", 1, 30}, {"fast", 2, 60}, {"fast", 3, 60},
		{"alone", 7, 300},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("weighted points (-want +got):\n%s", diff)
	}
	if !committed {
		t.Error("batch not committed")
	}
	for k, v := range map[string]string{"Content-Encoding": "snappy", "Content-Type": "application/x-protobuf", "X-Prometheus-Remote-Read-Version": "0.1.0"} {
		if got := req.Header.Get(k); got != v {
			t.Errorf("header %s: %q, want %q", k, got, v)
		}
	}
	qs, _ := decodeReadRequest(t, readSnappyLiterals(t, *reqBody))
	if want := []readQuery{{-999, 1800000, ms}}; !cmp.Equal(want, qs) {
		t.Errorf("queries %v, want %v", qs, want)
	}
}

func TestRemoteQueryErrors(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		status      int
		contentType string
		body        []byte
	}{
		"not found":   {404, "text/plain", []byte("404 page not found")},
		"samples":     {200, "application/x-protobuf", []byte{0}},
		"corrupt crc": {200, streamedChunksType, append([]byte{1, 0, 0, 0, 0}, 0x10)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, _, _ := remoteServer(t, tt.status, tt.contentType, tt.body)
			c, err := New(Config{URL: srv.URL, Retries: 0})
			if err != nil {
				t.Fatal(err)
			}
			committed := false
			errs := c.Run(context.Background(), []Task{{Query: "m", From: time.Unix(0, 0), To: time.Unix(1800, 0), Raw: true, Remote: true,
				Cap: time.Minute, Open: func() Batch { return recBatch{new([]weighted), &committed} }}})
			if len(errs) != 1 || committed {
				t.Errorf("errors %v, committed %v; want one error, nothing committed", errs, committed)
			}
			if k, ok := KindOf(errs[0]); !ok || k != Bad {
				t.Errorf("kind %v, want %v", k, Bad)
			}
		})
	}
}

// TestAutoPrefersRemoteRead: auto reads raw samples by remote read when
// the server answers it with streamed chunks, over the JSON API otherwise.
func TestAutoPrefersRemoteRead(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		status      int
		contentType string
		body        []byte
		want        string
	}{
		"streamed chunks": {200, streamedChunksType, nil, ReadRemote},
		"not found":       {404, "text/plain", nil, ReadRaw},
		"not allowed":     {405, "text/plain", nil, ReadRaw},
		"samples only":    {200, "application/x-protobuf", []byte{0}, ReadRaw},
		"bad frame":       {200, streamedChunksType, []byte{5, 0, 0, 0, 0, 1}, ReadRaw},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, _, _ := remoteServer(t, tt.status, tt.contentType, tt.body)
			c, err := New(Config{URL: srv.URL, Retries: 0})
			if err != nil {
				t.Fatal(err)
			}
			end := time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC)
			b := &builder{c: c, opts: Options{Read: ReadAuto, Window: cluster.Window{Start: end.Add(-time.Hour), End: end}}.withDefaults()}
			b.w = b.opts.Window
			if got := b.readMode(context.Background(), "m"); got != tt.want {
				t.Errorf("read mode %q, want %q", got, tt.want)
			}
			if got := b.readMode(context.Background(), "m2"); got != tt.want {
				t.Errorf("second read mode %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRemoteGroupReadsTheWindowOnce: the days of a raw read become one
// remote-read request over their union, read into the first day's batch,
// whose weighting runs across the days' ends.
func TestRemoteGroupReadsTheWindowOnce(t *testing.T) {
	t.Parallel()
	s := func(ts int64, v float64) sample { return sample{ts * 1000, v} }
	// a: one sample a step, crossing the day end at 900 s; b: a gap
	// across it (its 600 s sample stands for a step, not for the time to
	// 900 s, as a day read alone would weigh it).
	body := frame(pbSeries([][2]string{{"pod", "a"}}, pbChunk(0, 1800000, encodeXOR(t, []sample{s(0, 1), s(300, 2), s(600, 3), s(900, 4), s(1200, 5), s(1800, 6)}))))
	body = append(body, frame(pbSeries([][2]string{{"pod", "b"}}, pbChunk(0, 1500000, encodeXOR(t, []sample{s(0, 8), s(600, 9), s(1500, 10)}))))...)
	srv, _, reqBody := remoteServer(t, 200, streamedChunksType, body)
	c, err := New(Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var got []weighted
	committed := false
	sec := func(s int64) time.Time { return time.Unix(s, 0) }
	open := func() Batch { return recBatch{&got, &committed} }
	b := &builder{opts: Options{Step: 5 * time.Minute}}
	days := []Task{
		{From: sec(-1), To: sec(900), Raw: true, Cap: 5 * time.Minute, Open: open},
		{From: sec(900), To: sec(1800), Raw: true, Cap: 5 * time.Minute, Open: open},
	}
	if raw := b.remoteGroup(false, "m", nil, days); len(raw) != 2 {
		t.Fatalf("raw read: %d tasks, want the 2 days", len(raw))
	}
	tasks := b.remoteGroup(true, "m", []Matcher{{MatchEqual, "__name__", "m"}}, days)
	if len(tasks) != 1 {
		t.Fatalf("%d tasks, want 1", len(tasks))
	}
	if errs := c.Run(context.Background(), tasks); len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []weighted{
		{"a", 1, 300}, {"a", 2, 300}, {"a", 3, 300}, {"a", 4, 300}, {"a", 5, 300}, {"a", 6, 300},
		{"b", 8, 300}, {"b", 9, 300}, {"b", 10, 300},
	}
	if diff := cmp.Diff(want, got); diff != "" || !committed {
		t.Errorf("weighted points (-want +got):\n%s\ncommitted %v", diff, committed)
	}
	qs, _ := decodeReadRequest(t, readSnappyLiterals(t, *reqBody))
	if len(qs) != 1 || qs[0].Start != -999 || qs[0].End != 1800000 {
		t.Errorf("request %v, want one query over [-999, 1800000]", qs)
	}
}

// BenchmarkDecodeXOR decodes 120-sample chunks (Prometheus' size) of
// 5-minute samples: a GPU activity ratio and a working set in bytes.
func BenchmarkDecodeXOR(b *testing.B) {
	var chunks [][]byte
	for _, v := range []func(i int) float64{
		func(i int) float64 { return 0.2 + 0.05*math.Sin(float64(i)) },
		func(i int) float64 { return float64(1<<30 + (i*7919)%(1<<24)) },
	} {
		var ss []sample
		for i := range 120 {
			ss = append(ss, sample{1793523600000 + int64(i)*300000 + int64(i%3), v(i)})
		}
		chunks = append(chunks, encodeXOR(b, ss))
	}
	var buf []xorSample
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, c := range chunks {
			var err error
			if buf, err = appendXOR(buf[:0], c); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*240)/b.Elapsed().Seconds(), "samples/s")
}

// activityBatch weighs each series into its own usage.Activity, as the
// DCGM batches of Build do.
type activityBatch struct{ accs *[]*usage.Activity }

func (a activityBatch) Series(map[string]string) PointFunc { return nil }
func (a activityBatch) Commit()                            {}
func (a activityBatch) Weighted(l map[string]string) func(v, dt float64) {
	acc, _ := a.accumulator(mapLabels(l))
	return acc.add
}
func (a activityBatch) accumulator(seriesLabels) (accumulator, bool) {
	acc := new(usage.Activity)
	*a.accs = append(*a.accs, acc)
	return accumulator{a: acc, scale: 1}, true
}

// BenchmarkRemoteIngest is a remote-read answer of 100 series × 14 days
// at 5 minutes (120-sample chunks, one frame a series, dcgm-exporter's
// labels) read as remoteQuery reads it: frames, CRC, labels, XOR chunks,
// weighing, activity accumulators. samples/s on one core.
func BenchmarkRemoteIngest(b *testing.B) {
	const series, samples = 100, 14 * 288
	var body []byte
	for s := range series {
		l := [][2]string{{"DCGM_FI_DRIVER_VERSION", "570.124.06"}, {"GPU_I_ID", ""}, {"Hostname", fmt.Sprintf("node-%d", s/8)},
			{"UUID", fmt.Sprintf("GPU-%08x-0000-0000-0000-000000000000", s)}, {"__name__", "DCGM_FI_PROF_GR_ENGINE_ACTIVE"},
			{"container", "main"}, {"device", fmt.Sprintf("nvidia%d", s%8)}, {"gpu", strconv.Itoa(s % 8)},
			{"modelName", "NVIDIA H100 80GB HBM3"}, {"namespace", "ml"}, {"pod", fmt.Sprintf("train-%d", s)}}
		var chunks [][]byte
		for c := 0; c < samples; c += 120 {
			var ss []sample
			for i := c; i < min(c+120, samples); i++ {
				ss = append(ss, sample{1793491200000 + int64(i)*300000, 0.2 + 0.05*math.Sin(float64(i*(s+1)))})
			}
			chunks = append(chunks, pbChunk(ss[0].T, ss[len(ss)-1].T, encodeXOR(b, ss)))
		}
		body = append(body, frame(pbSeries(l, chunks...))...)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var (
		n    int64
		accs []*usage.Activity
	)
	for b.Loop() {
		for _, a := range accs {
			n += a.Samples
		}
		accs = accs[:0]
		onSeries, onSink, flush := weighSeries(activityBatch{&accs}, 5*time.Minute)
		if err := decodeChunkedRead(bytes.NewReader(body), 0, math.MaxInt64, onSeries, false, true, nil, onSink, nil); err != nil {
			b.Fatal(err)
		}
		flush()
	}
	for _, a := range accs {
		n += a.Samples
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
}
