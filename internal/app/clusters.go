package app

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// ClusterFile is one cluster's snapshot file in a merged report.
type ClusterFile struct {
	// Name is the cluster's name; empty takes the file's base name
	// without extensions.
	Name string
	Path string
}

// ParseClusterFile reads a --from value: FILE or NAME=FILE.
func ParseClusterFile(s string) ClusterFile {
	if name, path, ok := strings.Cut(s, "="); ok && name != "" && !strings.ContainsAny(name, `/\`) {
		return ClusterFile{Name: name, Path: path}
	}
	return ClusterFile{Path: s}
}

func (c ClusterFile) name() string {
	if c.Name != "" {
		return c.Name
	}
	base := filepath.Base(c.Path)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// readClusters reads every file and merges them into one snapshot
// (cluster.Merger: names prefixed, nodes labelled and clipped to their
// own window).
func readClusters(files []ClusterFile, maxBytes int64, window time.Duration) (*cluster.Snapshot, error) {
	var m cluster.Merger
	seen := map[string]string{}
	for _, f := range files {
		name := f.name()
		if prev, ok := seen[name]; ok {
			return nil, usageErrorf("from: %s and %s both name cluster %q; name them: --from NAME=FILE", prev, f.Path, name)
		}
		seen[name] = f.Path
		s, err := readFile(f.Path, maxBytes, window)
		if err != nil {
			return nil, err
		}
		if err := m.Add(name, s); err != nil {
			return nil, usageErrorf("from: %v", err)
		}
	}
	return m.Snapshot(), nil
}
