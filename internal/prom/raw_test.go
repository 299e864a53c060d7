package prom

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

type weighted struct {
	Series string
	V, DT  float64
}

// recBatch records weighted points per series.
type recBatch struct {
	got       *[]weighted
	committed *bool
}

func (r recBatch) Series(map[string]string) PointFunc { return nil }
func (r recBatch) Commit()                            { *r.committed = true }
func (r recBatch) Weighted(l map[string]string) func(v, dt float64) {
	name := l["pod"]
	if name == "skip" {
		return nil
	}
	return func(v, dt float64) { *r.got = append(*r.got, weighted{name, v, dt}) }
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
	c, err := New(Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var got []weighted
	committed := false
	to := time.Unix(1800, 0)
	errs := c.Run(context.Background(), []Task{{Query: "m[30m]", From: time.Unix(0, 0), To: to, Raw: true, Cap: 5 * time.Minute,
		Open: func() Batch { return recBatch{&got, &committed} }}})
	if len(errs) > 0 {
		t.Fatal(errs)
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

// TestReadModeProbe: auto reads raw only where samples come about once a
// step, and range when the probe finds nothing or fails.
func TestReadModeProbe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, read, body string
		status           int
		want             string
	}{
		{"one sample a step", ReadAuto, `[{"metric":{},"values":[[1,"12"]]},{"metric":{},"values":[[1,"11"]]},{"metric":{},"values":[[1,"240"]]}]`, 200, ReadRaw},
		{"a sample every 15s", ReadAuto, `[{"metric":{},"values":[[1,"240"]]}]`, 200, ReadRange},
		{"nothing", ReadAuto, `[]`, 200, ReadRange},
		{"probe fails", ReadAuto, ``, 400, ReadRange},
		{"raw asked", ReadRaw, ``, 400, ReadRaw},
		{"range asked", ReadRange, `[{"metric":{},"values":[[1,"12"]]}]`, 200, ReadRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.status != 200 {
					w.WriteHeader(tt.status)
					return
				}
				fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":%s}}`, tt.body)
			}))
			t.Cleanup(srv.Close)
			c, err := New(Config{URL: srv.URL, Retries: 0})
			if err != nil {
				t.Fatal(err)
			}
			end := time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC)
			b := &builder{c: c, opts: Options{Read: tt.read, Window: cluster.Window{Start: end.Add(-time.Hour), End: end}}.withDefaults()}
			b.w = b.opts.Window
			if got := b.readMode(context.Background(), "m"); got != tt.want {
				t.Errorf("read mode %q, want %q", got, tt.want)
			}
			if len(b.failed) > 0 {
				t.Errorf("probe failure counted as a failed read: %v", b.failed)
			}
		})
	}
}
