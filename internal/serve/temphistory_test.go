package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// Without --history the history is a file in a temporary directory (not
// SQLite's in-memory database, whose pages stay in the process), which
// Close removes; the status says so.
func TestHistoryWithoutAPathIsATemporaryFileRemovedOnClose(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	opts := liveOptions("")
	opts.Window = 4 * time.Hour
	svc, err := serve.New(context.Background(), opts, serve.Deps{App: app.New(time.Now), Inventory: staticInv{tiny()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "gpuwise-history-*", "history.db"))
	if len(files) != 1 {
		t.Fatalf("history files under TMPDIR: %v, want one", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Size() == 0 {
		t.Fatalf("history file %s: %v (size %v), want the recorded cycle", files[0], err, fi)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR after Close: %v", left)
	}
}

func TestStatusSaysTheHistoryIsTemporary(t *testing.T) {
	in := small(t, liveOptions(""), true)
	_, _, body := in.get(t, "/api/v1/status")
	if !strings.Contains(string(body), `"history": "a temporary file (removed on exit: set --history)"`) {
		t.Errorf("status = %s, want the temporary history named", body)
	}
}
