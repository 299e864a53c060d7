package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// limitSnapshot has 3 nodes, 4 pods, 5 series and a 1,000-byte label.
func limitSnapshot() *cluster.Snapshot {
	s := sample()
	s.Nodes = append(s.Nodes, ct.Node("n3").Obj())
	s.Pods = append(s.Pods,
		ct.Pod("ml", "c").On("n1").Label("long", strings.Repeat("x", 1000)).Holds("n1/gpu0", 0.5, 60).Holds("n1/gpu0", 0.1, 60).Obj(),
		ct.Pod("ml", "d").On("n1").Holds("n1/gpu0", 0.2, 60).Holds("n1/gpu0", 0.3, 60).Obj())
	return s
}

// Issue 16 item 11: every limit holds in both formats, at its value and
// one below it, with an error that names the limit and the flag.
func TestReadLimits(t *testing.T) {
	t.Parallel()
	s := limitSnapshot()
	files := map[string][]byte{"version 1": encodeV1(t, s, gzip.DefaultCompression), "version 2": encodeV2(t, s)}
	sizes := map[string]int64{"version 1": int64(len(snapshotJSONDoc(t, s))), "version 2": rawSize(t, files["version 2"])}
	tests := []struct {
		field string
		set   func(*ReadOptions, int64)
		at    func(format string) int64
	}{
		{"MaxBytes", func(o *ReadOptions, v int64) { o.MaxBytes = v }, func(f string) int64 { return sizes[f] }},
		{"MaxStringBytes", func(o *ReadOptions, v int64) { o.MaxStringBytes = int(v) }, func(string) int64 { return 1000 }},
		{"MaxNodes", func(o *ReadOptions, v int64) { o.MaxNodes = int(v) }, func(string) int64 { return 3 }},
		{"MaxPods", func(o *ReadOptions, v int64) { o.MaxPods = int(v) }, func(string) int64 { return 4 }},
		{"MaxSeries", func(o *ReadOptions, v int64) { o.MaxSeries = int(v) }, func(string) int64 { return 5 }},
	}
	for _, tt := range tests {
		for format, data := range files {
			t.Run(tt.field+"/"+format, func(t *testing.T) {
				o := DefaultReadOptions()
				tt.set(&o, tt.at(format))
				if _, err := o.Read(bytes.NewReader(data)); err != nil {
					t.Fatalf("at the limit: %v", err)
				}
				tt.set(&o, tt.at(format)-1)
				_, err := o.Read(bytes.NewReader(data))
				var lim *LimitError
				// The flag named must be one that raises the limit: WithMaxBytes
				// raises every count but not MaxStringBytes.
				flag := "--max-snapshot-bytes"
				if tt.field == "MaxStringBytes" {
					flag = "no flag raises it"
				}
				if !errors.As(err, &lim) || !errors.Is(err, ErrLimit) || lim.Field != tt.field ||
					!strings.Contains(err.Error(), "ReadOptions."+tt.field) || !strings.Contains(err.Error(), flag) {
					t.Errorf("one under the limit: %v, want a LimitError on %s saying %q", err, tt.field, flag)
				}
				if tt.field == "MaxStringBytes" && strings.Contains(err.Error(), "--max-snapshot-bytes") {
					t.Errorf("MaxStringBytes error %q points at --max-snapshot-bytes, which does not raise it", err)
				}
			})
		}
	}
}

func snapshotJSONDoc(t *testing.T, s *cluster.Snapshot) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewReader(bytes.NewReader(encodeV1(t, s, gzip.DefaultCompression)))
	b.ReadFrom(w)
	return b.Bytes()
}

// rawSize is the sum of a version 2 file's raw frame lengths.
func rawSize(t *testing.T, data []byte) int64 {
	var n int64
	for _, sp := range frameSpans(t, data) {
		n += int64(binary.LittleEndian.Uint32(data[sp[0]+8:]))
	}
	return n
}

// A small file that claims or inflates to far more than MaxBytes fails
// before it costs that memory: gzip of 32 MiB of spaces (≈ 32 KB), a zstd
// frame of 60 MiB of zeros, a header claiming a billion pods.
func TestReadBombsFailCheaply(t *testing.T) {
	o := DefaultReadOptions()
	o.MaxBytes = 1 << 20
	var spaces bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&spaces, gzip.BestSpeed)
	zw.Write([]byte(`{"kind":"gpuwise.snapshot","version":1,"snapshot":{"source":"`))
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for range 32 {
		zw.Write(chunk)
	}
	zw.Write([]byte(`"}}`))
	zw.Close()
	enc, _ := zstdEncoder()
	zeros := enc.EncodeAll(make([]byte, 60<<20), nil)
	bombs := map[string][]byte{
		"gzip JSON inflating to 32 MiB":   spaces.Bytes(),
		"a zstd frame of 60 MiB":          v2File(frame{typ: frameHeader, codec: codecZstd, rawLen: 60 << 20, stored: zeros}),
		"a header claiming 10^9 pods":     v2File(frame{typ: frameHeader, rawLen: len(bigHeader()), stored: bigHeader()}),
		"a frame claiming 64 MiB, stored": v2File(frame{typ: frameHeader, rawLen: 64 << 20, stored: make([]byte, 64<<20)})[:100],
	}
	for name, data := range bombs {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := o.Read(bytes.NewReader(data))
		runtime.ReadMemStats(&m1)
		if !errors.Is(err, ErrLimit) {
			t.Errorf("%s (%d bytes): %v, want a LimitError", name, len(data), err)
		}
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 8<<20 {
			t.Errorf("%s: reading allocated %d MiB before failing", name, alloc>>20)
		}
	}
}

// bigHeader is a header payload declaring 10^9 pods.
func bigHeader() []byte {
	e := newEncoder()
	e.time(ct.At(0))
	e.time(ct.At(1))
	e.str("bomb")
	e.str("")
	e.uvarint(0) // notes: nil
	e.uvarint(0) // partial: nil (version 3)
	e.uvarint(1)
	e.uvarint(1e9 + 1)
	e.uvarint(1)
	e.uvarint(1)
	e.byte(0)          // no hourly series (version 3)
	e.uvarint(0)       // unknown facts: nil (version 5)
	e.byte(0)          // no DRA section (version 5)
	e.byte(0)          // no Kueue section (version 6)
	e.byte(0)          // no controls section (version 7)
	e.uvarint(Version) // the version again (version 8)
	return e.payload()
}

// v2File frames fs (numbered in order) after the magic and version.
func v2File(fs ...frame) []byte {
	out := binary.AppendUvarint([]byte(Kind), Version)
	for i, f := range fs {
		f.index = uint32(i)
		out = appendFrame(out, f)
	}
	return out
}

func TestWithMaxBytesRaisesEveryCount(t *testing.T) {
	t.Parallel()
	d := DefaultReadOptions()
	got := d.WithMaxBytes(4 * DefaultMaxBytes)
	want := ReadOptions{MaxBytes: 4 * DefaultMaxBytes, MaxStringBytes: DefaultMaxStringBytes,
		MaxNodes: 4 * DefaultMaxNodes, MaxPods: 4 * DefaultMaxPods, MaxSeries: 4 * DefaultMaxSeries}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WithMaxBytes(4×) (-want +got):\n%s", diff)
	}
	small := d.WithMaxBytes(1 << 20)
	if small.MaxBytes != 1<<20 || small.MaxPods != DefaultMaxPods {
		t.Errorf("WithMaxBytes(1 MiB) = %+v: lowers only MaxBytes", small)
	}
}

// A zstd frame that claims a few kilobytes and inflates to 16 MiB stops at
// the length it claims.
func TestReadZstdLyingAboutItsLength(t *testing.T) {
	enc, _ := zstdEncoder()
	zeros := enc.EncodeAll(make([]byte, 16<<20), nil)
	data := v2File(frame{typ: frameHeader, codec: codecZstd, rawLen: 2 * len(zeros), stored: zeros})
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := Read(bytes.NewReader(data))
	runtime.ReadMemStats(&m1)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "zstd") {
		t.Errorf("Read = %v, want ErrFormat from zstd", err)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 8<<20 {
		t.Errorf("reading allocated %d MiB before failing", alloc>>20)
	}
}

// Issue 31 M1: --max-snapshot-bytes 9223372036854775807 read a version 1
// snapshot with a panic (max + 1 overflowed in limitReader). Both formats
// read at the largest limit, through WithMaxBytes as the flag sets it.
func TestMaxSnapshotBytesMaxInt64(t *testing.T) {
	t.Parallel()
	s := limitSnapshot()
	files := map[string][]byte{"version 1": encodeV1(t, s, gzip.DefaultCompression),
		"version 1 plain": snapshotJSONDoc(t, s), "version 2": encodeV2(t, s)}
	o := DefaultReadOptions().WithMaxBytes(math.MaxInt64)
	for format, data := range files {
		got, err := o.Read(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s at MaxBytes = MaxInt64: %v", format, err)
			continue
		}
		if len(got.Pods) != len(s.Pods) || len(got.Nodes) != len(s.Nodes) {
			t.Errorf("%s: read %d pods, %d nodes; want %d, %d", format, len(got.Pods), len(got.Nodes), len(s.Pods), len(s.Nodes))
		}
	}
}

// Issue 31 low item: the MaxStringBytes error named --max-snapshot-bytes,
// which does not raise it (WithMaxBytes keeps the string limit).
func TestMaxStringBytesErrorNamesNoFlagThatDoesNotRaiseIt(t *testing.T) {
	t.Parallel()
	if got := DefaultReadOptions().WithMaxBytes(math.MaxInt64).MaxStringBytes; got != DefaultMaxStringBytes {
		t.Fatalf("WithMaxBytes changed MaxStringBytes to %d: the error text below would be wrong", got)
	}
	msg := limitErr("a string", 70000, "MaxStringBytes", DefaultMaxStringBytes).Error()
	if strings.Contains(msg, "--max-snapshot-bytes") || !strings.Contains(msg, "no flag raises it") {
		t.Errorf("MaxStringBytes error = %q", msg)
	}
}
