// Package snapshot owns the snapshot file format: a cluster.Snapshot
// (inventory plus usage summaries over a window) as `gpuwise collect` and
// `gpuwise demo --save` write it and every analysis command reads it with
// --from.
//
// Version 4 (written) is framed binary: per-frame string tables, varints,
// the accumulators' exact state (usage.ActivityState, usage.GaugeState),
// the hourly series as float32 bits (hourly.go), zstd per frame, a
// CRC-32C and an index in every frame header; frames are encoded and
// decoded on every core; nodes carry their provider IDs. Version 3 (the
// same without provider IDs), version 2 (the same without hourly series, end
// reasons and checkpoint hints; its early files also without the partial
// list) and version 1 (gzip JSON) are still read.
// A file is read to its end: corrupt, truncated or trailing data, unknown
// versions and codecs are ErrFormat errors, never a partial snapshot; what
// reading may cost is bounded by ReadOptions (LimitError). A snapshot read
// is read-only: pods of a frame with equal labels, node selectors or
// tolerations share one map or list, as the simulator's pods do, and so do
// containers with equal GPU requests; GPU activity comes back packed to
// its non-zero buckets (usage.Activity.SetState).
//
// It is an adapter: it may import core packages (cluster, usage), never
// the reverse, and nothing of the front ends.
package snapshot
