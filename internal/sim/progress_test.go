package sim

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"
)

// Every cell is reported once, from whichever worker built it, and the
// simulation is the same with or without a listener.
func TestGenerateReportsEachCell(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Scale, cfg.Window = 3, cfg.Step*24
	var mu sync.Mutex
	seen := map[int64]bool{}
	cfg.Progress = func(phase string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if phase != "simulating cluster" || total != 3 || seen[done] {
			t.Errorf("progress %q %d/%d (seen %v)", phase, done, total, seen)
		}
		seen[done] = true
	}
	got, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || !seen[3] {
		t.Errorf("cells reported %v, want 1, 2 and 3", seen)
	}
	cfg.Progress = nil
	want, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if !bytes.Equal(a, b) {
		t.Error("the snapshot differs when progress is reported")
	}
}
