package lib

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdsFile reports whether process pid has path open.
func holdsFile(t *testing.T, pid int, path string) bool {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}

// startUnderLock runs start (a bash line that starts `sleep 60` in the
// background and echoes its pid) under `flock LOCK`, the way the
// integration tiers run, and returns the sleeper's pid.
func startUnderLock(t *testing.T, lock, start string) int {
	t.Helper()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Fatalf("flock (util-linux) is needed: %v", err)
	}
	out, err := exec.Command("flock", lock, "bash", "-c", ". ./proc.sh; "+start).Output()
	if err != nil {
		t.Fatalf("%s: %v", start, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("%s: pid %q: %v", start, out, err)
	}
	t.Cleanup(func() {
		syscall.Kill(pid, syscall.SIGKILL)
		for range 50 {
			if syscall.Kill(pid, 0) != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	return pid
}

// A server started with detach does not keep the integration lock's file
// descriptor (a VictoriaMetrics that kept it held the lock after its tier
// and blocked every other session); one started with a plain `&` does,
// which shows the check can fail.
func TestDetachDropsTheLockDescriptor(t *testing.T) {
	dir := t.TempDir()
	// Two locks: the plain child keeps its lock held (that is the bug).
	held := filepath.Join(dir, "held.lock")
	plain := startUnderLock(t, held, "sleep 60 >/dev/null 2>&1 & echo $!")
	if !holdsFile(t, plain, held) {
		t.Fatalf("control: a plain background child does not hold %s; the check below proves nothing", held)
	}
	lock := filepath.Join(dir, "integration.lock")
	detached := startUnderLock(t, lock, "detach sleep 60 >/dev/null 2>&1; echo $!")
	// $! is the subshell that closes the descriptors and then execs the
	// command: wait for the exec before looking at what it holds.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(detached), "cmdline")); strings.HasPrefix(string(cmd), "sleep\x00") {
			break
		}
	}
	if holdsFile(t, detached, lock) {
		t.Errorf("a detached child holds %s", lock)
	}
	if cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(detached), "cmdline")); !strings.HasPrefix(string(cmd), "sleep\x00") {
		t.Errorf("$! is not the detached command's pid: cmdline %q", cmd)
	}
}
