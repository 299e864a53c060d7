package serve_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// instance is a service behind a test HTTP server, with its logs.
type instance struct {
	svc *serve.Service
	srv *httptest.Server
	log *syncBuffer
	reg *prometheus.Registry
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWith builds a service with opts, the clock now and the given
// sources (nil: the options'), and serves its handler; it runs no cycle
// loop (tests call Cycle).
func startWith(t *testing.T, opts serve.Options, now func() time.Time, inv serve.Inventory, usage serve.UsageReader) *instance {
	t.Helper()
	log := &syncBuffer{}
	reg := prometheus.NewRegistry()
	labelled := prometheus.WrapRegistererWith(prometheus.Labels{"cluster": opts.Cluster}, reg)
	d := serve.Deps{App: app.New(now), Log: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Registry: labelled, Inventory: inv}
	if usage != nil {
		d.Usage = usage
	}
	svc, err := serve.New(context.Background(), opts, d)
	if err != nil {
		t.Fatal(err)
	}
	h, err := svc.Handler(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
	})
	return &instance{svc: svc, srv: srv, log: log, reg: reg}
}

func demoOptions() serve.Options {
	o := serve.DefaultOptions()
	o.Demo = app.DefaultDemo()
	o.Listen = "127.0.0.1:0"
	o.Version = cli.Version
	return o
}

var (
	demoOnce sync.Once
	demoInst *instance
)

// TestMain closes the shared --demo service after the tests, removing its
// temporary history.
func TestMain(m *testing.M) {
	code := m.Run()
	if demoInst != nil {
		demoInst.srv.Close()
		demoInst.svc.Close()
	}
	os.Exit(code)
}

// demo is one shared --demo service (building it records the week).
func demo(t *testing.T) *instance {
	t.Helper()
	demoOnce.Do(func() {
		log := &syncBuffer{}
		reg := prometheus.NewRegistry()
		labelled := prometheus.WrapRegistererWith(prometheus.Labels{"cluster": "default"}, reg)
		svc, err := serve.New(context.Background(), demoOptions(), serve.Deps{App: app.New(time.Now),
			Log: slog.New(slog.NewTextHandler(log, nil)), Registry: labelled})
		if err != nil {
			panic(err)
		}
		h, err := svc.Handler(reg)
		if err != nil {
			panic(err)
		}
		demoInst = &instance{svc: svc, srv: httptest.NewServer(h), log: log, reg: reg}
	})
	return demoInst
}

// get fetches path with headers "K", "V" pairs.
func (in *instance) get(t *testing.T, path string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", in.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := in.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// cliOut runs the gpuwise CLI in-process and returns its stdout.
func cliOut(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Execute(args, cli.Streams{Out: &out, Err: &errb}); code != cli.ExitOK {
		t.Fatalf("gpuwise %v: exit %d: %s", args, code, errb.String())
	}
	return out.Bytes()
}

// tiny is a one-node inventory, for tests of the HTTP front end.
func tiny() *cluster.Snapshot {
	now := time.Now().UTC().Truncate(time.Hour)
	n := clustertest.Node("gpu-1").GPUs(2, "H100-80GB").Instance("p5.48xlarge", "on-demand").Obj()
	n.Cloud, n.Region = "aws", "us-east-1"
	p := clustertest.Pod("ml", "train-0").On("gpu-1").Owner("Job", "train").Holds("gpu-1/gpu0", -1, 0).Obj()
	p.Start = now.Add(-48 * time.Hour)
	n.Created = now.Add(-72 * time.Hour)
	return &cluster.Snapshot{Window: cluster.Window{Start: now.Add(-48 * time.Hour), End: now}, Source: "tiny",
		Nodes: []cluster.Node{n}, Pods: []cluster.Pod{p}}
}

// small is a service on the tiny inventory (no usage source) that has run
// one cycle, when cycle is set.
func small(t *testing.T, opts serve.Options, cycle bool) *instance {
	t.Helper()
	opts.Window = 4 * time.Hour
	in := startWith(t, opts, time.Now, staticInv{tiny()}, nil)
	if cycle {
		if err := in.svc.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return in
}
