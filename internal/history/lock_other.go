//go:build !unix

package history

// fileLock is a no-op where flock is not available.
type fileLock struct{}

func lock(string) (*fileLock, error) { return &fileLock{}, nil }

func (*fileLock) unlock() {}
