package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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

// readClusters reads every file and merges them into one snapshot: each
// cluster's nodes and namespaces are prefixed with its name ("prod/ml"),
// its nodes labelled with cluster.ClusterLabel (--by cluster groups by
// it), and its nodes' lives clipped to its own window, so that a node is
// billed only for the time its snapshot covers. The window is the union;
// a note says when the files' windows differ.
func readClusters(files []ClusterFile, maxBytes int64, window time.Duration) (*cluster.Snapshot, error) {
	out := &cluster.Snapshot{}
	seen := map[string]string{}
	var sources []string
	for i, f := range files {
		name := f.name()
		if prev, ok := seen[name]; ok {
			return nil, usageErrorf("from: %s and %s both name cluster %q; name them: --from NAME=FILE", prev, f.Path, name)
		}
		seen[name] = f.Path
		s, err := readFile(f.Path, maxBytes, window)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			out.Window, out.ActivityMetric = s.Window, s.ActivityMetric
		} else if s.Window != out.Window {
			out.Notes = append(out.Notes, fmt.Sprintf("cluster %s covers %s, not the same window as the others: its nodes count only for their own window", name, s.Window))
		}
		out.Window = union(out.Window, s.Window)
		addHourly(out, name, s, i == 0)
		addCluster(out, name, s)
		sources = append(sources, name+": "+s.Source)
	}
	out.Source = strings.Join(sources, "; ")
	if out.Hourly != nil {
		slices.SortFunc(out.Hourly.Workloads, func(a, b cluster.WorkloadHours) int { return strings.Compare(a.Workload, b.Workload) })
	}
	return out, nil
}

// addHourly adds s's hourly series under name (workload keys prefixed as
// addCluster prefixes namespaces) while every cluster so far has them over
// the same window and idle threshold; otherwise the merged snapshot has
// none, and a note says why.
func addHourly(out *cluster.Snapshot, name string, s *cluster.Snapshot, first bool) {
	switch {
	case first && s.Hourly != nil:
		out.Hourly = &cluster.Hourly{IdleThreshold: s.Hourly.IdleThreshold}
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

func union(a, b cluster.Window) cluster.Window {
	if b.Start.Before(a.Start) {
		a.Start = b.Start
	}
	if b.End.After(a.End) {
		a.End = b.End
	}
	return a
}

// addCluster appends s's nodes and pods to out under name.
func addCluster(out *cluster.Snapshot, name string, s *cluster.Snapshot) {
	px := func(v string) string { return name + "/" + v }
	for _, n := range s.Nodes {
		n.Name = px(n.Name)
		n.Labels = maps.Clone(n.Labels)
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[cluster.ClusterLabel] = name
		if n.Created.Before(s.Window.Start) {
			n.Created = s.Window.Start
		}
		if n.Deleted.IsZero() || n.Deleted.After(s.Window.End) {
			n.Deleted = s.Window.End
		}
		n.GPUs = append([]cluster.GPU(nil), n.GPUs...)
		for j := range n.GPUs {
			n.GPUs[j].Units = append([]cluster.Unit(nil), n.GPUs[j].Units...)
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
		p.GPUs = append([]cluster.Holding(nil), p.GPUs...)
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
