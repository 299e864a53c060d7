package cli

import (
	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// snapshotLimit is --max-snapshot-bytes: how large a --from file may be
// once decompressed; the node, pod and series limits grow with it
// (snapshot.ReadOptions.WithMaxBytes).
type snapshotLimit struct{ maxBytes int64 }

func (l *snapshotLimit) register(fs *pflag.FlagSet) {
	fs.Int64Var(&l.maxBytes, "max-snapshot-bytes", snapshot.DefaultMaxBytes,
		"largest --from snapshot to read, in decompressed bytes; the node, pod and series limits grow with it")
}

// read reads the snapshot at path within the limit.
func (l *snapshotLimit) read(path string) (*cluster.Snapshot, error) {
	if l.maxBytes <= 0 {
		return nil, usageErrorf("max-snapshot-bytes: %d is not a positive number of bytes", l.maxBytes)
	}
	s, err := snapshot.DefaultReadOptions().WithMaxBytes(l.maxBytes).ReadFile(path)
	if err != nil {
		return nil, inputError(err)
	}
	return s, nil
}
