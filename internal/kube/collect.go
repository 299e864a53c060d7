package kube

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Snapshot reads the cluster's inventory into a snapshot covering
// [now-window, now). Usage is not read: every holding's Activity is nil
// (unmeasured) until a usage source fills it in.
func (c *Client) Snapshot(ctx context.Context, now time.Time, window time.Duration) (*cluster.Snapshot, error) {
	objs, err := c.list(ctx, now)
	if err != nil {
		return nil, err
	}
	s := build(objs, now, window)
	s.Source = fmt.Sprintf("%s (%s)", c.Source, c.Server)
	s.Notes = append(s.Notes, "inventory from the Kubernetes API: GPU usage is unmeasured until a Prometheus source is added; "+
		"which physical GPU a pod holds is assigned deterministically, not read from the node")
	return s, nil
}

// build assembles converted objects into a snapshot, deterministically:
// nodes and pods sorted by name, notes in that order.
func build(o *objects, now time.Time, window time.Duration) *cluster.Snapshot {
	return buildSticky(o, now, window, nil, nil)
}

// buildSticky is build where running pods keep the units prev gave them
// (by UID) when they can, and take no unit reserved past their start.
func buildSticky(o *objects, now time.Time, window time.Duration, prev map[string][]string, reserved map[string]time.Time) *cluster.Snapshot {
	s := &cluster.Snapshot{Window: cluster.Window{Start: now.Add(-window), End: now}}
	s.Nodes = o.nodes
	sort.Slice(s.Nodes, func(i, j int) bool { return s.Nodes[i].Name < s.Nodes[j].Name })
	s.Notes = append(s.Notes, o.nodeNotes...)
	sort.Strings(s.Notes)
	s.Pods = o.pods
	sort.Slice(s.Pods, func(i, j int) bool { return s.Pods[i].Key() < s.Pods[j].Key() })
	var missing int
	for i := range s.Pods {
		if p := &s.Pods[i]; p.Node != "" && o.pools[p.Node] == nil {
			missing++
			p.Node = ""
		}
	}
	if missing > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d pods are bound to nodes that no longer exist; treated as unbound", missing))
	}
	if o.dra != nil {
		info, notes := draBuild(s, o.dra, o.templateOf)
		s.DRA = info
		s.Notes = append(s.Notes, notes...)
	}
	if o.kueue != nil {
		s.Kueue = kueueBuild(s, o.kueue, o.ctrl)
	}
	s.Controls = o.controls
	s.Partial = append(s.Partial, o.partial...)
	s.Notes = append(s.Notes, assignSticky(s.Pods, o.pools, prev, reserved)...)
	s.Notes = append(s.Notes, hamiAsks(s)...)
	return s
}
