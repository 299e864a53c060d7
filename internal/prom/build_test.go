package prom

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// fakeCluster is a Prometheus with one node and no DCGM data whose range
// queries fail with failStatus when their query contains failOn.
func fakeCluster(t *testing.T, failOn string, failStatus int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		q := r.Form.Get("query")
		switch {
		case r.URL.Path == "/api/v1/series" && r.Form.Get("match[]") == "kube_node_info":
			w.Write([]byte(`{"status":"success","data":[{"__name__":"kube_node_info","node":"n1","provider_id":"aws:///us-east-1a/i-1"}]}`))
		case r.URL.Path == "/api/v1/series":
			w.Write([]byte(`{"status":"success","data":[]}`))
		case failOn != "" && strings.Contains(q, failOn):
			w.WriteHeader(failStatus)
		case strings.Contains(q, "kube_node_labels"):
			w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"node":"n1","label_node_kubernetes_io_instance_type":"m7i.4xlarge"},"values":[[1793491200,"1"]]}]}}`))
		default:
			w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func build(t *testing.T, srv *httptest.Server) (*cluster.Snapshot, error) {
	return buildReading(t, srv, "")
}

func buildReading(t *testing.T, srv *httptest.Server, read string) (*cluster.Snapshot, error) {
	t.Helper()
	c, err := New(Config{URL: srv.URL, Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	return Build(context.Background(), c, Options{Window: cluster.Window{Start: start, End: start.Add(48 * time.Hour)}, Read: read})
}

func TestBuildMarksPartialReads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		failOn       string
		status       int
		wantSnapshot bool
		wantPartial  bool
		wantKind     Kind
	}{
		{"everything answers", "", 0, true, false, 0},
		{"cAdvisor queries fail: partial", "container_memory_working_set_bytes", 503, true, true, Unreachable},
		{"every kube-state-metrics query denied: no snapshot", "kube_", 403, false, false, Denied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := build(t, fakeCluster(t, tt.failOn, tt.status))
			var partial *PartialError
			if got := errors.As(err, &partial); got != tt.wantPartial {
				t.Fatalf("partial = %v (err %v), want %v", got, err, tt.wantPartial)
			}
			if (s != nil) != tt.wantSnapshot {
				t.Fatalf("snapshot %v, err %v; want snapshot: %v", s != nil, err, tt.wantSnapshot)
			}
			if err != nil {
				if kind, _ := KindOf(err); kind != tt.wantKind {
					t.Errorf("kind %v, want %v (%v)", kind, tt.wantKind, err)
				}
			}
			if s == nil {
				return
			}
			if len(s.Nodes) != 1 || s.Nodes[0].InstanceType != "m7i.4xlarge" || s.Nodes[0].Cloud != "aws" {
				t.Errorf("nodes %+v, want n1, an aws m7i.4xlarge", s.Nodes)
			}
			notes := strings.Join(s.Notes, "\n")
			if !strings.Contains(notes, "no DCGM series found") {
				t.Errorf("notes %q do not say DCGM is missing", notes)
			}
			if tt.wantPartial && !strings.Contains(notes, "PARTIAL:") {
				t.Errorf("notes %q do not mark the snapshot partial", notes)
			}
		})
	}
}

func TestBuildMarksPartialRawReads(t *testing.T) {
	t.Parallel()
	s, err := buildReading(t, fakeCluster(t, "container_cpu_usage_seconds_total", 503), ReadRaw)
	var partial *PartialError
	if s == nil || !errors.As(err, &partial) {
		t.Fatalf("snapshot %v, err %v; want a partial snapshot", s != nil, err)
	}
	if _, err := buildReading(t, fakeCluster(t, "", 0), "sometimes"); err == nil || !strings.Contains(err.Error(), "want auto, remote, raw or range") {
		t.Errorf("err %v, want a bad read mode rejected", err)
	}
}
