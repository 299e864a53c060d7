//go:build integration

package backend

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cost"
)

// State is a backend's URL and ground-truth snapshot, as up.sh wrote them
// into the directory named by env (dir when env is unset). The test fails
// naming target, the make target that starts the backend, when there is
// none.
func State(t testing.TB, env, dir, target string) (url, truth string) {
	t.Helper()
	if d := os.Getenv(env); d != "" {
		dir = d
	}
	b, err := os.ReadFile(filepath.Join(dir, "url"))
	if err != nil {
		t.Fatalf("no backend state in %s: %v (run make %s)", dir, err, target)
	}
	return strings.TrimSpace(string(b)), filepath.Join(dir, "truth.json.gz")
}

// Report runs gpuwise with args (which ask for -o json) and decodes the
// cost report; on a non-zero exit the report is nil and stderr and the
// code say why.
func Report(t testing.TB, args ...string) (*cost.Report, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Execute(args, cli.Streams{Out: &out, Err: &errb})
	if code != cli.ExitOK {
		return nil, errb.String(), code
	}
	var r cost.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("gpuwise %v: output is not a JSON report: %v", args, err)
	}
	return &r, errb.String(), code
}
