package prom

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/api"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

func testReader(t *testing.T, url, read string) *reader {
	t.Helper()
	o := Defaults()
	o.Client.URL, o.Client.Retries, o.Read = url, 0, read
	end := time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC)
	o.Window = cluster.Window{Start: end.Add(-time.Hour), End: end}
	c, err := api.New(o.Client)
	if err != nil {
		t.Fatal(err)
	}
	return newReader(context.Background(), c, o)
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
			if got := testReader(t, srv.URL, tt.read).readMode(context.Background(), "m"); got != tt.want {
				t.Errorf("read mode %q, want %q", got, tt.want)
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
		"streamed chunks": {200, wire.StreamedChunksType, nil, ReadRemote},
		"not found":       {404, "text/plain", nil, ReadRaw},
		"not allowed":     {405, "text/plain", nil, ReadRaw},
		"samples only":    {200, "application/x-protobuf", []byte{0}, ReadRaw},
		"bad frame":       {200, wire.StreamedChunksType, []byte{5, 0, 0, 0, 0, 1}, ReadRaw},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/v1/read" {
					fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"12"]]}]}}`)
					return
				}
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				w.Write(tt.body)
			}))
			t.Cleanup(srv.Close)
			r := testReader(t, srv.URL, ReadAuto)
			for _, sel := range []string{"m", "m2"} {
				if got := r.readMode(context.Background(), sel); got != tt.want {
					t.Errorf("read mode of %s %q, want %q", sel, got, tt.want)
				}
			}
		})
	}
}
