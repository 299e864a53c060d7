package app

import (
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
	name, path := cluster.ParseNamedFile(s)
	return ClusterFile{Name: name, Path: path}
}

func (c ClusterFile) name() string {
	if c.Name != "" {
		return c.Name
	}
	return cluster.FileClusterName(c.Path)
}

// readClusters reads every file and merges them into one snapshot
// (cluster.Merged: each cluster's nodes and namespaces prefixed with its
// name, its nodes labelled with cluster.ClusterLabel, its nodes' lives
// clipped to its own window; the window is the union). Two files that
// name the same cluster are a usage error.
func readClusters(files []ClusterFile, maxBytes int64, window time.Duration) (*cluster.Snapshot, error) {
	var m cluster.Merged
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
		m.Add(name, s)
	}
	return m.Snapshot(), nil
}
