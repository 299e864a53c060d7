package query

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/prom/api"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/prom/wire/wiretest"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	tests := []struct {
		name     string
		end      time.Time
		step     time.Duration
		maxSteps int
		want     []Span
	}{
		{"one day of 5m steps in 100-step spans", at(24 * time.Hour), 5 * time.Minute, 100, []Span{
			{at(0), at(99 * 5 * time.Minute)},
			{at(100 * 5 * time.Minute), at(199 * 5 * time.Minute)},
			{at(200 * 5 * time.Minute), at(24 * time.Hour)},
		}},
		{"end off the grid", at(61 * time.Minute), 30 * time.Minute, 10, []Span{{at(0), at(time.Hour)}}},
		{"a single point", at(0), time.Minute, 10, []Span{{at(0), at(0)}}},
		{"maxSteps above Prometheus' limit is capped", at(20000 * time.Second), time.Second, 50000, []Span{
			{at(0), at(10999 * time.Second)}, {at(11000 * time.Second), at(20000 * time.Second)},
		}},
		{"inverted range", at(-time.Hour), time.Minute, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Split(t0, tt.end, tt.step, tt.maxSteps)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestShards(t *testing.T) {
	t.Parallel()
	names := []string{"c", "a.b", "d", "b"}
	got := Shards(names, 3)
	want := []Shard{{Nodes: []string{"a.b", "b", "c"}, Regex: `a\.b|b|c`}, {Nodes: []string{"d"}, Regex: "d"}}
	if diff := cmp.Diff(want, got); diff != "" || got[0].Quoted() != `"a\\.b|b|c"` || names[0] != "c" {
		t.Errorf("(-want +got):\n%s\nquoted %s; names %v (must stay as given)", diff, got[0].Quoted(), names)
	}
}

type weighted struct {
	Series string
	V, DT  float64
}

// recBatch records weighted points per series.
type recBatch struct {
	got       *[]weighted
	committed *bool
}

func (r recBatch) Series(l wire.Labels) Target {
	name := l.Get("pod")
	if name == "skip" {
		return Target{}
	}
	return Target{Acc: Acc{Func: func(v, dt float64) { *r.got = append(*r.got, weighted{name, v, dt}) }}}
}
func (r recBatch) Commit() { *r.committed = true }

func runner(t *testing.T, url string) Runner {
	t.Helper()
	cfg := api.DefaultConfig()
	cfg.URL, cfg.Retries = url, 0
	c, err := api.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return Runner{Client: c}
}

func TestRawQueryWeightsSamples(t *testing.T) {
	t.Parallel()
	var path, at, query string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		path, at, query = r.URL.Path, r.Form.Get("time"), r.Form.Get("query")
		w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[
			{"metric":{"pod":"a"},"values":[[0,"1"],[300,"2"],[600,"3"],[1500,"4"],[1800,"5"]]},
			{"metric":{"pod":"skip"},"values":[[0,"9"]]},
			{"metric":{"pod":"fast"},"values":[[0,"1"],[30,"2"],[60,"NaN"],[90,"3"]]},
			{"metric":{"pod":"alone"},"values":[[0,"7"]]}]}}`))
	}))
	t.Cleanup(srv.Close)
	var got []weighted
	committed := false
	failed := runner(t, srv.URL).Run(context.Background(), []Task{{Query: "m[30m]", From: time.Unix(0, 0), To: time.Unix(1800, 0), Raw: true, Cap: 5 * time.Minute,
		Open: func() Batch { return recBatch{&got, &committed} }}}, 0)
	if len(failed) > 0 {
		t.Fatal(failed)
	}
	if path != "/api/v1/query" || at != "1800" || query != "m[30m]" {
		t.Errorf("asked %s time=%s query=%s, want /api/v1/query time=1800 query=m[30m]", path, at, query)
	}
	want := []weighted{
		// Each sample stands for the time to the next, at most 5m: the
		// 15-minute gap counts 5m; the last stands for the gap before it.
		{"a", 1, 300}, {"a", 2, 300}, {"a", 3, 300}, {"a", 4, 300}, {"a", 5, 300},
		// A NaN is no sample.
		{"fast", 1, 30}, {"fast", 2, 60}, {"fast", 3, 60},
		// A lone sample stands for the cap.
		{"alone", 7, 300},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("weighted points (-want +got):\n%s", diff)
	}
	if !committed {
		t.Error("batch not committed")
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

// stale is Prometheus' stale marker, a NaN.
func stale() float64 { return math.Float64frombits(0x7ff0000000000002) }

func sec(ts int64, v float64) wire.Sample { return wire.Sample{T: ts * 1000, V: v} }

// The same samples as TestRawQueryWeightsSamples, read by remote read,
// weigh the same.
func TestRemoteQueryWeightsSamples(t *testing.T) {
	t.Parallel()
	var body []byte
	for _, sr := range []struct {
		pod string
		s   []wire.Sample
	}{
		{"a", []wire.Sample{sec(0, 1), sec(300, 2), sec(600, 3), sec(1500, 4), sec(1800, 5)}},
		{"skip", []wire.Sample{sec(0, 9)}},
		{"fast", []wire.Sample{sec(0, 1), sec(30, 2), sec(60, stale()), sec(90, 3)}},
		{"alone", []wire.Sample{sec(0, 7)}},
	} {
		body = append(body, wiretest.SeriesFrames([][2]string{{"pod", sr.pod}}, sr.s)...)
	}
	srv, req, reqBody := remoteServer(t, 200, wire.StreamedChunksType, body)
	var got []weighted
	committed := false
	ms := []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: "m"}}
	// From is a step before the first sample: the samples read are in
	// (From, To].
	failed := runner(t, srv.URL).Run(context.Background(), []Task{{Query: "m[35m]", From: time.Unix(-1, 0), To: time.Unix(1800, 0), Raw: true, Remote: true,
		Matchers: ms, Cap: 5 * time.Minute, Open: func() Batch { return recBatch{&got, &committed} }}}, 0)
	if len(failed) > 0 {
		t.Fatal(failed)
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
	qs, _, err := wiretest.DecodeReadRequest(*reqBody)
	if want := []wiretest.ReadQuery{{Start: -999, End: 1800000, Matchers: ms}}; err != nil || !cmp.Equal(want, qs) {
		t.Errorf("queries %v (%v), want %v", qs, err, want)
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
		"corrupt crc": {200, wire.StreamedChunksType, append([]byte{1, 0, 0, 0, 0}, 0x10)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, _, _ := remoteServer(t, tt.status, tt.contentType, tt.body)
			committed := false
			failed := runner(t, srv.URL).Run(context.Background(), []Task{{Query: "m", From: time.Unix(0, 0), To: time.Unix(1800, 0), Raw: true, Remote: true,
				Cap: time.Minute, Open: func() Batch { return recBatch{new([]weighted), &committed} }}}, 0)
			if len(failed) != 1 || committed {
				t.Fatalf("failures %v, committed %v; want one failure, nothing committed", failed, committed)
			}
			if k, ok := api.KindOf(failed[0].Err); !ok || k != api.Bad {
				t.Errorf("kind %v, want %v", k, api.Bad)
			}
		})
	}
	srv, _, _ := remoteServer(t, 200, wire.StreamedChunksType, nil)
	if !runner(t, srv.URL).RemoteReadWorks(context.Background(), 0, 1, nil) {
		t.Error("an empty streamed answer failed the probe")
	}
}

// TestWholeWindowReadsTheWindowOnce: the days of a raw read become one
// remote-read request over their union, read into the first day's batch,
// whose weighting runs across the days' ends.
func TestWholeWindowReadsTheWindowOnce(t *testing.T) {
	t.Parallel()
	// a: one sample a step, crossing the day end at 900 s; b: a gap
	// across it (its 600 s sample stands for a step, not for the time to
	// 900 s, as a day read alone would weigh it).
	body := wiretest.SeriesFrames([][2]string{{"pod", "a"}}, []wire.Sample{sec(0, 1), sec(300, 2), sec(600, 3), sec(900, 4), sec(1200, 5), sec(1800, 6)})
	body = append(body, wiretest.SeriesFrames([][2]string{{"pod", "b"}}, []wire.Sample{sec(0, 8), sec(600, 9), sec(1500, 10)})...)
	srv, _, reqBody := remoteServer(t, 200, wire.StreamedChunksType, body)
	var got []weighted
	committed := false
	open := func() Batch { return recBatch{&got, &committed} }
	days := []Task{
		{From: time.Unix(-1, 0), To: time.Unix(900, 0), Step: 5 * time.Minute, Raw: true, Cap: 5 * time.Minute, Open: open},
		{From: time.Unix(900, 0), To: time.Unix(1800, 0), Step: 5 * time.Minute, Raw: true, Cap: 5 * time.Minute, Open: open},
	}
	tasks := WholeWindow(days, "m", []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: "m"}}, nil)
	if len(tasks) != 1 {
		t.Fatalf("%d tasks, want 1", len(tasks))
	}
	if failed := runner(t, srv.URL).Run(context.Background(), tasks, 0); len(failed) > 0 {
		t.Fatal(failed)
	}
	want := []weighted{
		{"a", 1, 300}, {"a", 2, 300}, {"a", 3, 300}, {"a", 4, 300}, {"a", 5, 300}, {"a", 6, 300},
		{"b", 8, 300}, {"b", 9, 300}, {"b", 10, 300},
	}
	if diff := cmp.Diff(want, got); diff != "" || !committed {
		t.Errorf("weighted points (-want +got):\n%s\ncommitted %v", diff, committed)
	}
	qs, _, _ := wiretest.DecodeReadRequest(*reqBody)
	if len(qs) != 1 || qs[0].Start != -999 || qs[0].End != 1800000 {
		t.Errorf("request %v, want one query over [-999, 1800000]", qs)
	}
}

// A Tally counts every Run's tasks, failed ones included, and its last
// report says all queued requests are done.
func TestTallyCountsRequests(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.FormValue("query"), "bad") {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
	}))
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	var reports [][2]int64
	r := runner(t, srv.URL)
	r.Tally = &Tally{Report: func(done, total int64) {
		mu.Lock()
		reports = append(reports, [2]int64{done, total})
		mu.Unlock()
	}}
	task := func(q string) Task {
		return Task{Query: q, From: time.Unix(0, 0), To: time.Unix(600, 0), Raw: true, Cap: 5 * time.Minute,
			Open: func() Batch { return nopBatch{} }}
	}
	if failed := r.Run(context.Background(), []Task{task("a[5m]"), task("bad[5m]"), task("c[5m]")}, 2); len(failed) != 1 {
		t.Fatalf("failed = %v, want the bad query", failed)
	}
	r.Run(context.Background(), []Task{task("d[5m]")}, 0)
	if len(reports) != 6 { // two queued reports, four done
		t.Fatalf("reports = %v, want 6", reports)
	}
	if last := reports[len(reports)-1]; last != [2]int64{4, 4} {
		t.Errorf("last report = %v, want 4 of 4 done", last)
	}
	for _, rep := range reports {
		if rep[0] > rep[1] {
			t.Errorf("report %v: more done than queued", rep)
		}
	}
}

// nopBatch keeps nothing (safe to commit from several workers).
type nopBatch struct{}

func (nopBatch) Series(wire.Labels) Target { return Target{} }
func (nopBatch) Commit()                   {}
