package cluster

import (
	"fmt"
	"maps"
	"strings"
)

// Merger merges the snapshots of several clusters into one, a cluster at
// a time (each snapshot may be dropped once added): each cluster's nodes
// and namespaces are prefixed with its name ("prod/ml"), its nodes
// labelled with ClusterLabel (a report by cluster groups by it), and its
// nodes' lives clipped to its own window, so that a node is billed only
// for the time its snapshot covers. The window is the union; a note says
// when the clusters' windows differ. Hourly series are not merged: the
// merged snapshot has none.
type Merger struct {
	out     Snapshot
	n       int
	names   map[string]bool
	sources []string
}

// Add merges one cluster's snapshot under name; a name given twice is an
// error (the clusters' objects would collide).
func (m *Merger) Add(name string, s *Snapshot) error {
	if m.names[name] {
		return fmt.Errorf("cluster %q given twice", name)
	}
	if m.names == nil {
		m.names = map[string]bool{}
	}
	m.names[name] = true
	out := &m.out
	if m.n == 0 {
		out.Window, out.ActivityMetric = s.Window, s.ActivityMetric
	} else if s.Window != out.Window {
		out.Notes = append(out.Notes, fmt.Sprintf("cluster %s covers %s, not the same window as the others: its nodes count only for their own window", name, s.Window))
	}
	m.n++
	out.Window = union(out.Window, s.Window)
	addCluster(out, name, s)
	m.sources = append(m.sources, name+": "+s.Source)
	return nil
}

// Snapshot is the merged snapshot, its source naming every cluster's.
func (m *Merger) Snapshot() *Snapshot {
	s := m.out
	s.Source = strings.Join(m.sources, "; ")
	return &s
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
}
