// Package snapshot owns the snapshot file format: a versioned, gzip-
// compressed JSON document holding a cluster.Snapshot (inventory plus usage
// summaries over a window). `gpuwise collect` writes it and every analysis
// command reads it with --from. Unknown versions and corrupt files are clear
// errors, never a partial snapshot.
//
// It is an adapter: it may import core packages, never the reverse.
package snapshot
