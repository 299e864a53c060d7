package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Merged merges several clusters' snapshots into one, a cluster at a
// time (each one's snapshot can be let go once added): each cluster's
// nodes and namespaces are prefixed with its name ("prod/ml"), its nodes
// labelled with ClusterLabel (--by cluster groups by it), and its nodes'
// lives clipped to its own window, so that a node is billed only for the
// time its snapshot covers. The window is the union; a note says when the
// snapshots' windows differ. The zero value is empty and ready to use;
// the caller gives every cluster a distinct name.
type Merged struct {
	out     Snapshot
	sources []string
	n       int
}

// Add merges s as the cluster name.
func (m *Merged) Add(name string, s *Snapshot) {
	out := &m.out
	first := m.n == 0
	if first {
		out.Window, out.ActivityMetric = s.Window, s.ActivityMetric
	} else if s.Window != out.Window {
		out.Notes = append(out.Notes, fmt.Sprintf("cluster %s covers %s, not the same window as the others: its nodes count only for their own window", name, s.Window))
	}
	out.Window = union(out.Window, s.Window)
	addHourly(out, name, s, first)
	addCluster(out, name, s)
	m.sources = append(m.sources, name+": "+s.Source)
	m.n++
}

// Snapshot is the merged snapshot of the clusters added so far.
func (m *Merged) Snapshot() *Snapshot {
	out := m.out
	out.Source = strings.Join(m.sources, "; ")
	if out.Hourly != nil {
		slices.SortFunc(out.Hourly.Workloads, func(a, b WorkloadHours) int { return strings.Compare(a.Workload, b.Workload) })
	}
	return &out
}

// addHourly adds s's hourly series under name (workload keys prefixed as
// addCluster prefixes namespaces) while every cluster so far has them over
// the same window and idle threshold; otherwise the merged snapshot has
// none, and a note says why.
func addHourly(out *Snapshot, name string, s *Snapshot, first bool) {
	switch {
	case first && s.Hourly != nil:
		out.Hourly = &Hourly{IdleThreshold: s.Hourly.IdleThreshold}
	case first || out.Hourly == nil:
		return
	case s.Hourly == nil || s.Window != out.Window || s.Hourly.IdleThreshold != out.Hourly.IdleThreshold:
		out.Hourly = nil
		out.Notes = append(out.Notes, fmt.Sprintf("cluster %s has no hourly series over the same window as the others: the merged snapshot has none (the levers that need them count nothing)", name))
		return
	}
	for _, w := range s.Hourly.Workloads {
		w.Workload = name + "/" + w.Workload
		out.Hourly.Workloads = append(out.Hourly.Workloads, w)
	}
}

func union(a, b Window) Window {
	if b.Start.Before(a.Start) {
		a.Start = b.Start
	}
	if b.End.After(a.End) {
		a.End = b.End
	}
	return a
}

// addCluster appends s's nodes and pods to out under name.
func addCluster(out *Snapshot, name string, s *Snapshot) {
	px := func(v string) string { return name + "/" + v }
	for _, n := range s.Nodes {
		n.Name = px(n.Name)
		n.Labels = maps.Clone(n.Labels)
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[ClusterLabel] = name
		if n.Created.Before(s.Window.Start) {
			n.Created = s.Window.Start
		}
		if n.Deleted.IsZero() || n.Deleted.After(s.Window.End) {
			n.Deleted = s.Window.End
		}
		n.GPUs = append([]GPU(nil), n.GPUs...)
		for j := range n.GPUs {
			n.GPUs[j].Units = append([]Unit(nil), n.GPUs[j].Units...)
			for k := range n.GPUs[j].Units {
				n.GPUs[j].Units[k].ID = px(n.GPUs[j].Units[k].ID)
			}
		}
		out.Nodes = append(out.Nodes, n)
	}
	for _, p := range s.Pods {
		p.Namespace = px(p.Namespace)
		if p.Node != "" {
			p.Node = px(p.Node)
		}
		p.GPUs = append([]Holding(nil), p.GPUs...)
		for j := range p.GPUs {
			p.GPUs[j].UnitID = px(p.GPUs[j].UnitID)
		}
		out.Pods = append(out.Pods, p)
	}
	for _, note := range s.Notes {
		out.Notes = append(out.Notes, name+": "+note)
	}
	for _, f := range s.Unknown { // unknown in one cluster: not decided for the merged one
		if out.Knows(f) {
			out.Unknown = append(out.Unknown, f)
		}
	}
	slices.Sort(out.Unknown)
}
