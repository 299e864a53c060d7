package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimHistory(t *testing.T) {
	dir := t.TempDir()
	om, truth := filepath.Join(dir, "h.om"), filepath.Join(dir, "truth.json.gz")
	var out, errb bytes.Buffer
	code := execute([]string{"sim", "history", "--days", "0.1", "-o", om, "--snapshot-out", truth}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(om)
	if err != nil || !bytes.HasSuffix(b, []byte("# EOF\n")) || !bytes.Contains(b, []byte("DCGM_FI_PROF_GR_ENGINE_ACTIVE{")) {
		t.Errorf("history file: err %v, %d bytes, want OpenMetrics with DCGM series ending in # EOF", err, len(b))
	}
	if _, err := os.Stat(truth); err != nil {
		t.Errorf("no ground-truth snapshot: %v", err)
	}
	for _, args := range [][]string{
		{"sim", "history"},
		{"sim", "history", "-o", om, "--days", "0.01"},
		{"sim", "history", "-o", om, "--start", "tomorrow"},
	} {
		errb.Reset()
		if code := execute(args, &out, &errb); code != exitUsage {
			t.Errorf("%s: exit %d, want %d (%s)", strings.Join(args, " "), code, exitUsage, errb.String())
		}
	}
}
