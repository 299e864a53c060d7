package history

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/proctest"
)

// writerEnv makes the test binary a history writer (see TestMain).
const writerEnv = "GPUWISE_HISTORY_WRITER"

// killKeys is the entries per cycle: enough that a kill often lands inside
// a transaction.
const killKeys = 800

func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		if err := writeForever(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	proctest.CloseInherited() // the writers must not keep the integration lock
	os.Exit(m.Run())
}

// writeForever records 10-minute cycles after the last one in the store,
// printing the start of each once it is committed, until killed.
func writeForever(path string) error {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		return err
	}
	next, err := s.Last(ctx, "kill")
	if err != nil {
		return err
	}
	if next.IsZero() {
		next = t0
	}
	for {
		c := Cycle{Cluster: "kill", Start: next, End: next.Add(10 * time.Minute)}
		for k := range killKeys {
			c.Entries = append(c.Entries, Entry{Kind: Workload, Key: fmt.Sprintf("ns/Job/w%04d", k),
				Values: Values{Seconds: 600, GPUAllocatedHours: 1, TotalUSD: 2}})
		}
		if _, err := s.Record(ctx, c); err != nil {
			return err
		}
		fmt.Println(next.Unix())
		next = c.End
	}
}

// A writer process killed (SIGKILL) at random moments, over and over,
// leaves a store that passes SQLite's integrity check and holds exactly
// the cycles it says it holds: every key's hours and dollars equal the
// recorded cycles, in the hourly and the daily table alike.
func TestKilledWriterLeavesAConsistentStore(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a writer process several times (about 10 s)")
	}
	path := filepath.Join(t.TempDir(), "h.db")
	rng := rand.New(rand.NewPCG(1, 2))
	committed := 0
	for round := range 6 {
		committed += runAndKill(t, path, 2+rng.IntN(3), time.Duration(rng.IntN(40))*time.Millisecond)
		t.Logf("round %d: %d cycles seen committed so far", round, committed)
	}
	ctx := context.Background()
	s := open(t, path)
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	cov, err := s.Coverage(ctx, "kill", t0, t0.Add(1000*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if cov.Cycles < committed {
		t.Fatalf("%d cycles in the store, but the writer saw %d committed", cov.Cycles, committed)
	}
	for _, g := range []Granularity{Hourly, Daily} {
		tot, err := s.Totals(ctx, Query{Cluster: "kill", Kind: Workload, From: t0, To: t0.Add(1000 * time.Hour), Granularity: g})
		if err != nil {
			t.Fatal(err)
		}
		if len(tot) != killKeys {
			t.Fatalf("%s: %d keys, want %d", g, len(tot), killKeys)
		}
		for k, v := range tot {
			if v.GPUAllocatedHours != float64(cov.Cycles) || v.TotalUSD != 2*float64(cov.Cycles) || v.Seconds != 600*float64(cov.Cycles) {
				t.Fatalf("%s %s: %.0f GPU-hours, $%.0f, %.0f s for %d cycles", g, k, v.GPUAllocatedHours, v.TotalUSD, v.Seconds, cov.Cycles)
			}
		}
	}
}

// runAndKill starts a writer, waits for it to commit `after` cycles, lets
// it run on for delay (so the kill lands at varied points of a write),
// kills it and returns the cycles it reported committed.
func runAndKill(t *testing.T, path string, after int, delay time.Duration) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), writerEnv+"="+path)
	cmd.SysProcAttr = proctest.Attr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	seen := 0
	for seen < after && lines.Scan() {
		seen++
	}
	time.Sleep(delay)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() { // cycles committed between the sleep and the kill
		seen++
	}
	cmd.Wait()
	if seen < after {
		t.Fatalf("the writer exited after %d cycles", seen)
	}
	return seen
}
