package cost

import (
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/pricing"
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

// Options steer one allocation.
type Options struct {
	Prices pricing.Pricer
	// IdleThreshold is the activity below which a unit counts as idle.
	IdleThreshold float64
	IdleShare     IdleShare
	// By is the aggregation key: namespace, workload, pod, node,
	// gpu-model, or label:KEY.
	By string
	// TopN is how many workloads the idle leaderboard keeps.
	TopN int
}

// DefaultOptions returns the documented defaults.
func DefaultOptions(p pricing.Pricer) Options {
	return Options{Prices: p, IdleThreshold: 0.10, IdleShare: ShareNone, By: "namespace", TopN: 10}
}

// Validate lists every problem with the options.
func (o Options) Validate() error {
	var probs []string
	if o.Prices == nil {
		probs = append(probs, "prices: no price catalog")
	}
	if o.IdleThreshold < 0 || o.IdleThreshold > 1 {
		probs = append(probs, fmt.Sprintf("idle threshold: %g is outside [0, 1]", o.IdleThreshold))
	}
	switch o.IdleShare {
	case ShareNone, ShareNode, ShareCluster:
	default:
		probs = append(probs, fmt.Sprintf("idle share: %q is not one of none, node, cluster", o.IdleShare))
	}
	if _, err := keyFunc(o.By); err != nil {
		probs = append(probs, err.Error())
	}
	if len(probs) > 0 {
		return fmt.Errorf("invalid options: %s", strings.Join(probs, "; "))
	}
	return nil
}
