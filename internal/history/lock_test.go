package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 31 low item: two serves on one history file with no lock.
func TestTwoServesOnOneHistoryFileNoLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	first, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, path)
	want := fmt.Sprintf("history %s is in use by gpuwise pid %d on host", path, os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "its own --history") {
		t.Errorf("second Open: %v, want %q", err, want)
	}
	// A reader does not take the lock.
	r, err := OpenExisting(ctx, path)
	if err != nil {
		t.Fatalf("OpenExisting while a writer holds the lock: %v", err)
	}
	r.Close()
	first.Close()
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	again.Close()
}

// Issue 31 low item: report --compare --history /nonexistent.db created
// a database.
func TestCompareHistoryNonexistentCreatesNoDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "nonexistent.db")
	_, err := OpenExisting(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "no such file") || !strings.Contains(err.Error(), path) {
		t.Errorf("OpenExisting of a missing file: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("OpenExisting left %v behind", ents)
	}
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	if _, err := OpenExisting(context.Background(), empty); err == nil || !strings.Contains(err.Error(), "empty file") {
		t.Errorf("OpenExisting of an empty file: %v", err)
	}
}

// Issue 31 M7: a damaged history file is detected: Open refuses it,
// naming the file and the fix, and Damaged recognizes SQLite's errors.
func TestDamagedHistoryFileIsDetected(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	s := open(t, path)
	for i := range 48 {
		keys := map[string]float64{}
		for k := range 40 {
			keys[fmt.Sprintf("ns/workload-with-a-long-name-%03d", k)] = float64(k)
		}
		if _, err := s.Record(ctx, cycle(t0.Add(time.Duration(i)*time.Hour), 60, keys)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 8*4096 {
		t.Fatalf("history of %d bytes (%v): too small to damage a page past the header", len(data), err)
	}
	for i := 2 * 4096; i < len(data)-4096; i += 4096 { // every page's header but the first's
		copy(data[i:i+16], "garbage-garbage!")
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, path)
	if err == nil || !Damaged(err) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "restore it from a backup") {
		t.Fatalf("Open of a damaged file: %v (Damaged %v), want an error naming it and the fix", err, Damaged(err))
	}
	if Damaged(fmt.Errorf("reading history: %w", context.Canceled)) {
		t.Error("a cancelled read counts as damage")
	}
}
