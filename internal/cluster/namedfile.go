package cluster

import (
	"path/filepath"
	"strings"
)

// ParseNamedFile reads a --from value: FILE, or NAME=FILE when the part
// before the first "=" is a non-empty name without a path separator (so
// that a path holding "=" stays a path). name is empty for a bare FILE.
func ParseNamedFile(s string) (name, path string) {
	if n, p, ok := strings.Cut(s, "="); ok && n != "" && !strings.ContainsAny(n, `/\`) {
		return n, p
	}
	return "", s
}

// FileClusterName is the cluster name a bare FILE gives: its base name
// without extensions ("prod.json.gz" is prod).
func FileClusterName(path string) string {
	base := filepath.Base(path)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}
