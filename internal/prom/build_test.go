package prom

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// testOptions reads promtest's window from url with fast retries.
func testOptions(url, read string) Options {
	o := Defaults()
	o.Client.URL, o.Client.Backoff = url, time.Millisecond
	o.Window = cluster.Window{Start: promtest.Window.Start, End: promtest.Window.End}
	o.Read = read
	return o
}

func buildFrom(t *testing.T, srv *promtest.Server, read string) (*cluster.Snapshot, error) {
	t.Helper()
	return Build(context.Background(), testOptions(srv.URL, read))
}

func pod(s *cluster.Snapshot, key string) *cluster.Pod {
	for i := range s.Pods {
		if s.Pods[i].Key() == key {
			return &s.Pods[i]
		}
	}
	return nil
}

// TestBuildFromHealthyHistory: every read mode builds the same cluster
// from promtest's history; nothing is missing.
func TestBuildFromHealthyHistory(t *testing.T) {
	t.Parallel()
	for _, read := range []string{ReadRemote, ReadAuto, ReadRaw, ReadRange} {
		t.Run(read, func(t *testing.T) {
			t.Parallel()
			s, err := buildFrom(t, promtest.New(t, promtest.Cluster()), read)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Nodes) != 2 || len(s.Pods) != 3 || len(s.Partial) != 0 {
				t.Fatalf("%d nodes, %d pods, partial %q; want 2, 3, nothing missing", len(s.Nodes), len(s.Pods), s.Partial)
			}
			n := s.Nodes[1]
			if n.Name != "gpu-1" || len(n.GPUs) != 2 || n.InstanceType != "p5.48xlarge" || n.GPUModel != "H100-80GB" || n.CPUMilli != 16000 {
				t.Errorf("node %+v", n)
			}
			idle := pod(s, "ml/idle-0")
			if idle == nil || len(idle.GPUs) != 1 || idle.GPUs[0].Activity != nil || idle.Owner.Name != "idle" || idle.Labels["team"] != "ml" {
				t.Errorf("idle-0 %+v: want one unmeasured GPU, owner idle, team ml", idle)
			}
			train := pod(s, "ml/train-0")
			measured := read != ReadRange // promtest answers raw samples (remote read, instant range vectors), not avg_over_time
			if train == nil || len(train.GPUs) != 1 || (train.GPUs[0].Activity != nil) != measured {
				t.Errorf("train-0 %+v: want one GPU, measured: %v", train, measured)
			}
		})
	}
}

// TestBuildMissingKubeStateMetrics (issue 16.3): with only kube_node_info,
// or every kube_pod_info value NaN, there is no report (a bad answer,
// naming the metric), never a confident empty one; a missing expected
// metric makes the snapshot partial, naming it.
func TestBuildMissingKubeStateMetrics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		edit        func([]promtest.Series) []promtest.Series
		read        string
		wantErr     string // no snapshot
		wantPartial string
	}{
		{"only kube_node_info", promtest.Keep("kube_node_info"), ReadRemote, "kube_pod_info", ""},
		{"only kube_node_info, JSON facts", promtest.Keep("kube_node_info"), ReadRange, "kube_pod_info", ""},
		{"kube_pod_info all NaN", promtest.NaN("kube_pod_info"), ReadRemote, "kube_pod_info", ""},
		{"kube_pod_info all NaN, JSON facts", promtest.NaN("kube_pod_info"), ReadRaw, "kube_pod_info", ""},
		{"no kube_pod_labels", promtest.Drop("kube_pod_labels"), ReadRemote, "", "no kube_pod_labels series"},
		{"no kube_node_labels", promtest.Drop("kube_node_labels"), ReadRemote, "", "nodes cannot be priced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := promtest.New(t, promtest.Cluster())
			srv.Edit(tt.edit)
			s, err := buildFrom(t, srv, tt.read)
			if tt.wantErr != "" {
				if kind, _ := KindOf(err); s != nil || kind != Bad || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("snapshot %v, error %v (kind %v); want none, a bad answer naming %s", s != nil, err, kind, tt.wantErr)
				}
				return
			}
			var partial *PartialError
			if s == nil || !errors.As(err, &partial) || !strings.Contains(strings.Join(s.Partial, "\n"), tt.wantPartial) {
				t.Fatalf("snapshot %v, error %v; want a partial snapshot saying %q", s != nil, err, tt.wantPartial)
			}
		})
	}
}

// TestBuildMissingRequests (issue 16.4): without request series, GPU
// requests come from the limits (the unmeasured pod keeps its GPU), the
// snapshot is partial and says CPU/memory requests are unknown; without
// limits either it says the unmeasured GPU pods cannot be placed. No
// request is turned into a silent zero.
func TestBuildMissingRequests(t *testing.T) {
	t.Parallel()
	for _, read := range []string{ReadRemote, ReadRange} {
		t.Run(read, func(t *testing.T) {
			t.Parallel()
			srv := promtest.New(t, promtest.Cluster())
			srv.Edit(promtest.Drop("kube_pod_container_resource_requests"))
			s, err := buildFrom(t, srv, read)
			var partial *PartialError
			if s == nil || !errors.As(err, &partial) {
				t.Fatalf("snapshot %v, error %v; want a partial snapshot", s != nil, err)
			}
			missing := strings.Join(s.Partial, "\n")
			if !strings.Contains(missing, "kube_pod_container_resource_requests") || !strings.Contains(missing, "taken from kube_pod_container_resource_limits") {
				t.Errorf("partial %q: want requests named missing and GPUs taken from limits", missing)
			}
			if idle := pod(s, "ml/idle-0"); idle == nil || len(idle.GPUs) != 1 || idle.GPUs[0].Activity != nil {
				t.Errorf("idle-0 %+v: want it still holding one unmeasured GPU", idle)
			}
			srv.Edit(promtest.Drop("kube_pod_container_resource_limits"))
			s, _ = buildFrom(t, srv, read)
			if missing := strings.Join(s.Partial, "\n"); !strings.Contains(missing, "cannot be placed") {
				t.Errorf("partial %q: want unplaceable GPU pods said", missing)
			}
			// Containers are known from their usage: their cost is not a
			// silent $0 for want of request series.
			if api := pod(s, "web/api-0"); api == nil || len(api.Containers) != 1 || api.Containers[0].CPU == nil {
				t.Errorf("api-0 %+v: want its measured container", api)
			}
		})
	}
}

// lateListing answers the DCGM inventory listing only after the facts and
// after the usage reads are sent, as a busy machine may (the client lists
// it beside them), and not at all once the server is dead: KillAtUsage
// must wait for it, or the build fails on the listing instead of going
// partial (a flake of TestReportPartialSaysSoFirst under load).
func lateListing(srv *promtest.Server, kubeAnswers int64) promtest.Fault {
	return func(w http.ResponseWriter, r *http.Request, _ int64, metric string) bool {
		if r.URL.Path != "/api/v1/series" || !strings.HasPrefix(metric, "DCGM_") {
			return false
		}
		for srv.Served("kube_") < kubeAnswers {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		if srv.Dead() {
			promtest.HangUp(w)
			return true
		}
		return false
	}
}

// TestBuildDeadServer (issue 16.6): Prometheus dies after the facts are
// in. The build ends in seconds, not after every request's retries. With
// the inventory listed (auto), the snapshot is partial, naming the usage
// it lacks, and keeps every GPU pod's holding (unmeasured); by remote read,
// where the inventory would come from the DCGM reads that failed, there
// is no snapshot; dying before the facts are in gives none either.
func TestBuildDeadServer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		read         string
		kubeAnswers  int64 // node list, remote-read probe (auto), facts (6 node, 15 pod metrics)
		dcgmListings int64 // the inventory (auto)
		lateListing  bool
		wantPartial  bool
	}{
		{ReadAuto, 1 + 1 + 21, 1, false, true},
		{ReadAuto, 1 + 1 + 21, 1, true, true},
		{ReadRemote, 1 + 21, 0, false, false},
	} {
		srv := promtest.New(t, promtest.Cluster())
		if tt.lateListing {
			srv.Inject(lateListing(srv, tt.kubeAnswers))
		}
		srv.Inject(promtest.KillAtUsage(srv, tt.kubeAnswers, tt.dcgmListings))
		o := testOptions(srv.URL, tt.read)
		// The default backoff; enough requests in flight that the usage
		// reads held back leave room for the facts.
		o.Client.Backoff, o.Client.Concurrency = 500*time.Millisecond, 64
		start := time.Now()
		s, err := Build(context.Background(), o)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: took %v after the server died; want it to fail fast", tt.read, took)
		}
		if !tt.wantPartial {
			if kind, _ := KindOf(err); s != nil || kind != Unreachable || !strings.Contains(err.Error(), "DCGM GPU inventory") {
				t.Errorf("%s: snapshot %v, error %v (kind %v); want none, unreachable, naming the inventory", tt.read, s != nil, err, kind)
			}
			continue
		}
		var partial *PartialError
		if s == nil || !errors.As(err, &partial) {
			t.Fatalf("%s: snapshot %v, error %v; want a partial snapshot", tt.read, s != nil, err)
		}
		missing := strings.Join(s.Partial, "\n")
		if !strings.Contains(missing, "DCGM usage of 1 node(s) (gpu-1)") || !strings.Contains(missing, "cAdvisor usage of 2 node(s)") {
			t.Errorf("partial %q: want the DCGM and cAdvisor usage named", missing)
		}
		for _, key := range []string{"ml/train-0", "ml/idle-0"} {
			if p := pod(s, key); p == nil || len(p.GPUs) != 1 || p.GPUs[0].Activity != nil {
				t.Errorf("%s: %+v, want one unmeasured GPU", key, p)
			}
		}
	}
	early := promtest.New(t, promtest.Cluster())
	early.Inject(promtest.KillAfter(early, 3))
	o := testOptions(early.URL, ReadRemote)
	o.Client.Backoff = 500 * time.Millisecond
	start := time.Now()
	s, err := Build(context.Background(), o)
	if kind, _ := KindOf(err); s != nil || kind != Unreachable || time.Since(start) > 5*time.Second {
		t.Errorf("dead before the facts: snapshot %v, error %v (kind %v) after %v; want none, unreachable, fast", s != nil, err, kind, time.Since(start))
	}
}

// TestBuildFactFailures: a kube-state-metrics metric that cannot be read
// ends the build with its failure's kind (every figure rests on it);
// failed usage reads make it partial.
func TestBuildFactFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		fault       promtest.Fault
		wantKind    Kind
		wantPartial string
	}{
		{"kube_pod_owner denied", promtest.Fail("kube_pod_owner", 403, "forbidden"), Denied, ""},
		{"kube_node_labels 503", promtest.Fail("kube_node_labels", 503, "busy"), Unreachable, ""},
		{"cAdvisor memory 503", promtest.Fail("container_memory_working_set_bytes", 503, "<html>busy</html>"), 0, "cAdvisor usage of 2 node(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := promtest.New(t, promtest.Cluster())
			srv.Inject(tt.fault)
			s, err := buildFrom(t, srv, ReadRemote)
			if tt.wantPartial == "" {
				if kind, _ := KindOf(err); s != nil || kind != tt.wantKind {
					t.Errorf("snapshot %v, error %v (kind %v); want none, kind %v", s != nil, err, kind, tt.wantKind)
				}
				return
			}
			if s == nil || !strings.Contains(strings.Join(s.Partial, "\n"), tt.wantPartial) || strings.Contains(err.Error(), "<html>") {
				t.Errorf("snapshot %v, error %v; want partial naming %q, no HTML", s != nil, err, tt.wantPartial)
			}
		})
	}
}

// TestOptionsValidate lists every problem at once, with the option's name.
func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	o := Defaults()
	o.Client.URL = "http://p"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("no window: %v", err)
	}
	o.Window = cluster.Window{Start: promtest.Window.Start, End: promtest.Window.End}
	if err := o.Validate(); err != nil {
		t.Fatalf("defaults with a URL and a window: %v", err)
	}
	o.Step, o.Read, o.ShardSize, o.Client.Gzip, o.Limits.MaxSeries = time.Millisecond, "sometimes", 0, "maybe", 10
	err := o.Validate()
	for _, want := range []string{"step: 1ms", `prometheus-read: "sometimes"`, "prometheus-shard-size: 0", `prometheus-gzip: "maybe"`, "prometheus-max-series: 10"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if _, err := Build(context.Background(), o); err == nil {
		t.Error("Build accepted invalid options")
	}
}

// labels is a label list of name, value pairs.
func labels(kv ...string) wire.Labels {
	var out wire.Labels
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, wire.Label{Name: kv[i], Value: kv[i+1]})
	}
	return out
}
