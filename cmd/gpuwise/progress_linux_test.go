package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY allocates a pseudo-terminal: the test reads the master, the
// command writes to the slave as to a terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening /dev/ptmx (a pty is what this test is about): %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pty's slave: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
		t.Fatalf("sizing the pty: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// runOnPTY runs the binary with stderr on a terminal and stdout on a
// pipe, and returns both.
func runOnPTY(t *testing.T, bin string, args ...string) (stdout, stderr string) {
	t.Helper()
	master, slave := openPTY(t)
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the child holds it; reads end when it exits
	read := make(chan []byte)
	go func() {
		b, err := io.ReadAll(master)
		var pe *os.PathError
		if err != nil && !(errors.As(err, &pe) && errors.Is(pe.Err, syscall.EIO)) {
			t.Errorf("reading the pty: %v", err)
		}
		read <- b
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	select {
	case b := <-read:
		return out.String(), string(b)
	case <-time.After(10 * time.Second):
		t.Fatal("the pty never closed")
	}
	return "", ""
}

// Progress is drawn on stderr when it is a terminal, and nowhere when
// stderr is piped or with --quiet; stdout is the same in every case.
func TestProgressOnlyOnATerminal(t *testing.T) {
	bin := build(t)
	args := []string{"demo", "--scale", "3", "-o", "csv", "--progress-delay", "0"}
	want, piped, code := runBinary(t, bin, args...)
	if code != 0 || piped != "" {
		t.Fatalf("piped stderr: exit %d, %q; want nothing", code, piped)
	}

	out, tty := runOnPTY(t, bin, args...)
	for _, s := range []string{"\rgpuwise: simulating cluster · ", "\rgpuwise: simulating cluster 3 in ",
		"\rgpuwise: allocating cost", "\x1b[K"} {
		if !strings.Contains(tty, s) {
			t.Errorf("terminal stderr lacks %q:\n%q", s, tty)
		}
	}
	if !strings.HasSuffix(tty, "\n") || strings.Count(tty, "\n") < 3 {
		t.Errorf("terminal stderr %q: want a final line per phase, ending the last", tty)
	}
	if out != want {
		t.Error("stdout differs when stderr is a terminal")
	}

	out, quiet := runOnPTY(t, bin, append(args, "--quiet")...)
	if quiet != "" || out != want {
		t.Errorf("--quiet on a terminal: stderr %q (want nothing), stdout same: %v", quiet, out == want)
	}
}

// As the kubectl plugin, progress lines carry the plugin's name.
func TestProgressNamesThePlugin(t *testing.T) {
	bin := build(t)
	plugin := bin[:strings.LastIndex(bin, "/")+1] + "kubectl-gpuwise"
	if err := os.Symlink(bin, plugin); err != nil {
		t.Fatal(err)
	}
	_, tty := runOnPTY(t, plugin, "inventory", "--demo", "--progress-delay", "0")
	if !strings.Contains(tty, "kubectl gpuwise: taking inventory") {
		t.Errorf("stderr %q lacks the plugin's name", tty)
	}
}
