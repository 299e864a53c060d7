package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/render"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// encodeV1 writes s as a version 1 file (gzip JSON, as gpuwise wrote it
// before version 2) at gzip level (gzip.NoCompression gives the stored
// blocks the corruption tests flip bits in).
func encodeV1(t testing.TB, s *cluster.Snapshot, level int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewEncoder(zw).Encode(document{Kind: Kind, Version: 1, Snapshot: s}); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeV2(t testing.TB, s *cluster.Snapshot) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func mustRead(t testing.TB, data []byte) *cluster.Snapshot {
	t.Helper()
	s, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// snapshotJSON is s as JSON: every field, accumulators included (their
// MarshalJSON writes their whole state).
func snapshotJSON(t testing.TB, s *cluster.Snapshot) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// reportJSON is the JSON report `gpuwise report --from` prints for s, by
// workload with idle shared per node (the grouping and sharing that
// touch most of the snapshot).
func reportJSON(t testing.TB, s *cluster.Snapshot) string {
	t.Helper()
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	opts := cost.DefaultOptions()
	opts.IdleShare = cost.ShareNode
	a, err := cost.Allocate(p, pricing.Embedded(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ro := cost.DefaultReportOptions()
	ro.By = "workload"
	r, err := cost.NewReport(a, ro)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := render.Report(&b, r, render.JSON, render.Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// frameSpans walks a version 2 file's frames and returns each frame's
// offset and total length (header and payload).
func frameSpans(t testing.TB, data []byte) [][2]int {
	t.Helper()
	_, n := binary.Uvarint(data[len(Kind):])
	at := len(Kind) + n
	var spans [][2]int
	for at+frameHeaderLen <= len(data) {
		l := frameHeaderLen + int(binary.LittleEndian.Uint32(data[at+12:]))
		spans = append(spans, [2]int{at, l})
		at += l
	}
	return spans
}

// resum recomputes every frame's checksum, so that a change to a payload
// reaches the decoder instead of stopping at the checksum.
func resum(data []byte) []byte {
	_, n := binary.Uvarint(data[min(len(Kind), len(data)):])
	at := len(Kind) + max(n, 0)
	for n > 0 && at+frameHeaderLen <= len(data) {
		l := int(binary.LittleEndian.Uint32(data[at+12:]))
		if at+frameHeaderLen+l > len(data) {
			break
		}
		crc := crc32.Update(crc32.Checksum(data[at:at+16], castagnoli), castagnoli, data[at+frameHeaderLen:at+frameHeaderLen+l])
		binary.LittleEndian.PutUint32(data[at+16:], crc)
		at += frameHeaderLen + l
	}
	return data
}

// filler sets every exported field of a value to random content: a field
// added to the cluster types later is filled too, so the round-trip tests
// fail until the codec writes it.
type filler struct{ rng *rand.Rand }

var (
	activityType = reflect.TypeFor[usage.Activity]()
	gaugeType    = reflect.TypeFor[usage.Gauge]()
	timeType     = reflect.TypeFor[time.Time]()
)

func (f filler) fill(v reflect.Value) {
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(f.time()))
		return
	case v.Kind() == reflect.Pointer && v.Type().Elem() == activityType:
		if f.rng.IntN(4) > 0 {
			v.Set(reflect.ValueOf(f.activity()))
		}
		return
	case v.Kind() == reflect.Pointer && v.Type().Elem() == gaugeType:
		if f.rng.IntN(4) > 0 {
			v.Set(reflect.ValueOf(f.gauge()))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.str())
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(f.int())
	case reflect.Bool:
		v.SetBool(f.rng.IntN(2) == 1)
	case reflect.Float64:
		v.SetFloat([]float64{0, 1, 0.5, 1.0 / 3, -0.25, f.rng.Float64(), math.Copysign(0, -1), 1e300}[f.rng.IntN(8)])
	case reflect.Float32: // hourly series: NaN is an hour without data
		v.SetFloat(float64([]float32{0, 1, 0.1, float32(math.NaN()), float32(math.Copysign(0, -1)), 3e38, f.rng.Float32(), 1e-40}[f.rng.IntN(8)]))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	case reflect.Slice:
		f.slice(v)
	case reflect.Map:
		f.mapOf(v)
	case reflect.Pointer:
		if f.rng.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			f.fill(v.Elem())
		}
	default:
		panic("filler: no rule for " + v.Type().String() + ": teach the round-trip tests (and the codec) about it")
	}
}

func (f filler) slice(v reflect.Value) {
	switch f.rng.IntN(4) {
	case 0: // nil
	case 1:
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	default:
		s := reflect.MakeSlice(v.Type(), 1+f.rng.IntN(3), 3)
		for i := range s.Len() {
			f.fill(s.Index(i))
		}
		v.Set(s)
	}
}

func (f filler) mapOf(v reflect.Value) {
	if f.rng.IntN(3) == 0 {
		return
	}
	m := reflect.MakeMap(v.Type())
	for range f.rng.IntN(4) {
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		f.fill(k)
		f.fill(e)
		m.SetMapIndex(k, e)
	}
	v.Set(m)
}

func (f filler) str() string {
	return []string{"", "a", "nvidia.com/gpu", "ml-team", "ünïcødé ✓", "\x00\xff bytes", "n1/gpu0/3g.40gb-0",
		string(rune('a' + f.rng.IntN(26)))}[f.rng.IntN(8)]
}

func (f filler) int() int64 {
	return []int64{0, 1, -1, 192000, math.MaxInt64, math.MinInt64, f.rng.Int64N(1 << 40), -f.rng.Int64N(1 << 20)}[f.rng.IntN(8)]
}

func (f filler) time() time.Time {
	switch f.rng.IntN(4) {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(f.rng.Int64N(4e9), f.rng.Int64N(1e9)).In(time.FixedZone("", 3600*(f.rng.IntN(27)-12)))
	}
	return time.Unix(1.7e9+f.rng.Int64N(1e8), 0).UTC()
}

func (f filler) activity() *usage.Activity {
	a := new(usage.Activity)
	for range f.rng.IntN(50) {
		a.Add(f.rng.Float64()*[]float64{0.05, 0.3, 1}[f.rng.IntN(3)], float64(1+f.rng.IntN(600)))
	}
	return a
}

func (f filler) gauge() *usage.Gauge {
	g := new(usage.Gauge)
	spread := []float64{1, 10, 200, 2000}[f.rng.IntN(4)]
	for range f.rng.IntN(50) {
		v := math.Exp2((f.rng.Float64() - 0.5) * spread)
		if f.rng.IntN(10) == 0 {
			v = 0
		}
		g.Add(v, float64(1+f.rng.IntN(600)))
	}
	return g
}

// randomSnapshot fills a snapshot with nodes and pods of random content.
func randomSnapshot(rng *rand.Rand, nodes, pods int) *cluster.Snapshot {
	f := filler{rng}
	s := new(cluster.Snapshot)
	f.fill(reflect.ValueOf(s).Elem())
	s.Nodes, s.Pods = make([]cluster.Node, nodes), make([]cluster.Pod, pods)
	for i := range s.Nodes {
		f.fill(reflect.ValueOf(&s.Nodes[i]).Elem())
	}
	for i := range s.Pods {
		f.fill(reflect.ValueOf(&s.Pods[i]).Elem())
	}
	return s
}

func testRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
