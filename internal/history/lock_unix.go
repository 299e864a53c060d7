//go:build unix

package history

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// fileLock is an advisory lock (flock) on path+".lock", held by the one
// process that writes the store: two serves on one file would each record
// every cycle's hours (issue 31), and SQLite's own locks only serialize
// their writes. The lock file holds the holder's pid and host, for the
// error the second one gets; the kernel drops the lock when the holder
// exits, however it exits, so a stale file never blocks.
type fileLock struct{ f *os.File }

func lock(path string) (*fileLock, error) {
	name := path + ".lock"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking history %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(name)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("history %s is in use by %s (lock %s): one gpuwise serve writes a history file; stop the other or give this one its own --history", path, who, name)
		}
		return nil, fmt.Errorf("locking history %s: %w", path, err)
	}
	host, _ := os.Hostname()
	f.Truncate(0)
	fmt.Fprintf(f, "gpuwise pid %d on host %s\n", os.Getpid(), host)
	f.Sync()
	return &fileLock{f: f}, nil
}

func (l *fileLock) unlock() {
	if l != nil {
		l.f.Close() // closing the descriptor releases the flock
	}
}
