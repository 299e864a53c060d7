package cost

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// IdleShare says where unallocated cost goes.
type IdleShare string

// Idle sharing modes.
const (
	// ShareNone keeps unallocated cost in its own rows.
	ShareNone IdleShare = "none"
	// ShareNode spreads a node's unallocated cost over the pods on it.
	ShareNode IdleShare = "node"
	// ShareCluster spreads all unallocated cost over every pod.
	ShareCluster IdleShare = "cluster"
)

// IdleShares lists the sharing modes in the order help text shows them.
var IdleShares = []IdleShare{ShareNone, ShareNode, ShareCluster}

// Options steer one allocation: how node cost is attributed to pods.
// Settings only: the prices are Allocate's own argument, loaded once by
// the caller, so options are validated, compared and kept as keys without
// a price source.
type Options struct {
	// IdleThreshold is the activity below which a unit counts as idle: a
	// whole percent (usage.CheckThreshold), so that it is answered exactly.
	IdleThreshold float64
	IdleShare     IdleShare
}

// DefaultOptions returns the documented allocation defaults.
func DefaultOptions() Options {
	return Options{IdleThreshold: cluster.DefaultIdleThreshold, IdleShare: ShareNone}
}

// Validate lists every problem with the options.
func (o Options) Validate() error {
	var probs []string
	if err := usage.CheckThreshold(o.IdleThreshold); err != nil {
		probs = append(probs, "idle threshold: "+err.Error())
	}
	switch o.IdleShare {
	case ShareNone, ShareNode, ShareCluster:
	default:
		probs = append(probs, fmt.Sprintf("idle share: %q is not one of none, node, cluster", o.IdleShare))
	}
	return problems(probs)
}

// ReportOptions steer how an allocation is grouped and ranked.
type ReportOptions struct {
	// By is the aggregation key: namespace, workload, pod, node,
	// gpu-model, capacity-type, mechanism (how the GPUs are allocated:
	// Line.Mechanism), cluster (the node label
	// cluster.ClusterLabel, set when snapshots of several clusters are
	// merged), or label:KEY.
	By string
	// TopN is how many workloads the idle leaderboard keeps.
	TopN int
	// LowUtil asks for the low-utilization list (zero: none).
	LowUtil LowUtilOptions
}

// DefaultReportOptions returns the documented report defaults.
func DefaultReportOptions() ReportOptions { return ReportOptions{By: "namespace", TopN: 10} }

// Validate lists every problem with the options.
func (o ReportOptions) Validate() error {
	var probs []string
	if _, err := keyFunc(o.By); err != nil {
		probs = append(probs, err.Error())
	}
	if o.TopN < 0 {
		probs = append(probs, fmt.Sprintf("top: %d is negative", o.TopN))
	}
	if err := o.LowUtil.Validate(); err != nil {
		probs = append(probs, err.Error())
	}
	return problems(probs)
}

// problems is every problem in one line, each naming its field.
func problems(probs []string) error {
	if len(probs) == 0 {
		return nil
	}
	return errors.New(strings.Join(probs, "; "))
}
