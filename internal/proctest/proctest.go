package proctest

import (
	"os"
	"strconv"
	"syscall"
)

// CloseInherited marks every open descriptor above 2 close-on-exec, so
// that the processes this one starts get stdin, stdout, stderr and what
// exec.Cmd passes them, and nothing it inherited. It returns the
// descriptors it marked.
func CloseInherited() []int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var marked []int
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		syscall.CloseOnExec(fd)
		marked = append(marked, fd)
	}
	return marked
}

// Attr is the SysProcAttr of a process a test starts beside it: killed
// when the test process dies (a test binary killed by its -timeout runs
// no cleanup).
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
