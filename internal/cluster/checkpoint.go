package cluster

import (
	"fmt"
	"time"
)

// CheckpointHint is the pod label or annotation by which a training job
// says it writes checkpoints, and how often: a Go duration ("30m", "2h"),
// the longest time between two checkpoints. A job interrupted at a random
// moment loses half of it on average (docs/architecture.md, "Checkpoint
// hints"). Environment variables are not read: they may hold secrets, and
// kube-state-metrics does not export them.
const CheckpointHint = "gpuwise.io/checkpoint-interval"

// maxCheckpointInterval bounds a hint: a week between checkpoints is no
// checkpointing at all for the spot decision.
const maxCheckpointInterval = 7 * 24 * time.Hour

// ParseCheckpointHint reads a CheckpointHint value: a positive Go duration
// of at most a week, in whole seconds.
func ParseCheckpointHint(v string) (int64, error) {
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s %q: not a duration such as 30m or 2h", CheckpointHint, v)
	case d < time.Second || d > maxCheckpointInterval:
		return 0, fmt.Errorf("%s %q: outside 1s to 168h", CheckpointHint, v)
	}
	return int64(d / time.Second), nil
}

// CheckpointFrom returns the checkpoint interval a pod's labels or
// annotations give (the annotation wins), 0 when neither has a valid
// hint, and the problem with an invalid one.
func CheckpointFrom(labels, annotations map[string]string) (int64, error) {
	v, ok := annotations[CheckpointHint]
	if !ok {
		v, ok = labels[CheckpointHint]
	}
	if !ok {
		return 0, nil
	}
	return ParseCheckpointHint(v)
}
