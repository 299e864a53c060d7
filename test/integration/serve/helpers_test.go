//go:build integration

package serve

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/proctest"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// TestMain keeps what the tests start (Prometheus, helm, kubectl) from
// inheriting the integration lock's descriptor.
func TestMain(m *testing.M) {
	proctest.CloseInherited()
	os.Exit(m.Run())
}

// repo is the repository root.
var repo = filepath.Join("..", "..", "..")

func tool(t *testing.T, name string) string {
	t.Helper()
	cache := os.Getenv("GPUWISE_CACHE")
	if cache == "" {
		cache = filepath.Join(os.Getenv("HOME"), ".cache", "gpuwise")
	}
	p := filepath.Join(cache, "tools", "bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s missing: run hack/tools/build.sh %s (make integration-serve does)", p, name)
	}
	return p
}

// run runs a command and returns its stdout; a failure fails the test with
// its stderr.
func run(t *testing.T, stdin []byte, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = repo
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, errb.String())
	}
	return out.Bytes()
}

// instance is an in-process serve behind a test HTTP server.
type instance struct {
	svc *serve.Service
	srv *httptest.Server
}

func start(t *testing.T, opts serve.Options) *instance {
	t.Helper()
	return startAt(t, opts, time.Now)
}

// startAt is start with the service's clock now.
func startAt(t *testing.T, opts serve.Options, now func() time.Time) *instance {
	t.Helper()
	reg := prometheus.NewRegistry()
	labelled := prometheus.WrapRegistererWith(prometheus.Labels{"cluster": opts.Cluster}, reg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	svc, err := serve.New(ctx, opts, serve.Deps{App: app.New(now), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: labelled})
	if err != nil {
		t.Fatal(err)
	}
	h, err := svc.Handler(reg)
	if err != nil {
		t.Fatal(err)
	}
	in := &instance{svc: svc, srv: httptest.NewServer(h)}
	t.Cleanup(func() {
		in.srv.Close()
		svc.Close()
	})
	return in
}

func (in *instance) get(t *testing.T, path string) []byte {
	t.Helper()
	resp, err := http.Get(in.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b
}

// shell runs a command line and returns its combined output.
func shell(line string) ([]byte, error) {
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = repo
	return cmd.CombinedOutput()
}
