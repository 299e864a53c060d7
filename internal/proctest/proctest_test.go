package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// holds runs a child that lists its descriptors' targets and reports
// whether path is among them.
func holds(t *testing.T, path string) bool {
	t.Helper()
	cmd := exec.Command("bash", "-c", `for f in /proc/$$/fd/*; do readlink "$f" || true; done`)
	cmd.SysProcAttr = Attr()
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(out), path+"\n")
}

// A descriptor inherited without close-on-exec (as flock hands its lock
// down) reaches a child until CloseInherited marks it.
func TestCloseInheritedKeepsTheLockFromChildren(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "integration.lock")
	f, err := os.Create(lock)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// What a descriptor inherited from flock looks like: no close-on-exec.
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if !holds(t, lock) {
		t.Fatalf("control: a child does not see the inherited descriptor %d; the check proves nothing", fd)
	}
	marked := CloseInherited()
	if holds(t, lock) {
		t.Errorf("a child still holds %s after CloseInherited (marked %v)", lock, marked)
	}
	found := false
	for _, m := range marked {
		found = found || m == fd
	}
	if !found {
		t.Errorf("CloseInherited marked %v, not the inherited %d", marked, fd)
	}
}
