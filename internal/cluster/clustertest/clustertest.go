// Package clustertest builds cluster objects for tests in a few readable
// lines: clustertest.Node("n1").GPUs(8, "H100-80GB").Obj().
package clustertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// NodeBuilder builds a cluster.Node.
type NodeBuilder struct{ n cluster.Node }

// Node starts a node named name with 4 cores and 16 GiB.
func Node(name string) *NodeBuilder {
	return &NodeBuilder{cluster.Node{Name: name, Cloud: "aws", Region: "us-east-1", InstanceType: "test.gpu",
		Capacity: cluster.OnDemand, CPUMilli: 4000, MemoryBytes: 16 << 30}}
}

// Resources sets allocatable CPU (cores) and memory (GiB).
func (b *NodeBuilder) Resources(cores, gib int64) *NodeBuilder {
	b.n.CPUMilli, b.n.MemoryBytes = cores*1000, gib<<30
	return b
}

// Instance sets instance type and capacity type.
func (b *NodeBuilder) Instance(typ, capacity string) *NodeBuilder {
	b.n.InstanceType, b.n.Capacity = typ, capacity
	return b
}

// Life bounds the node's life (zero: beyond the window).
func (b *NodeBuilder) Life(created, deleted time.Time) *NodeBuilder {
	b.n.Created, b.n.Deleted = created, deleted
	return b
}

// GPUs adds count exclusive GPUs of model; unit IDs are "<node>/gpu<i>".
func (b *NodeBuilder) GPUs(count int, model string) *NodeBuilder {
	b.n.GPUModel = model
	for range count {
		i := len(b.n.GPUs)
		b.n.GPUs = append(b.n.GPUs, cluster.GPU{Index: i, Model: model, Sharing: cluster.Exclusive, Replicas: 1,
			Units: []cluster.Unit{{ID: fmt.Sprintf("%s/gpu%d", b.n.Name, i), Kind: cluster.WholeGPU}}})
	}
	return b
}

// MIG adds one MIG GPU of model with the given profiles; unit IDs are
// "<node>/gpu<i>/<profile>-<k>".
func (b *NodeBuilder) MIG(model string, profiles ...string) *NodeBuilder {
	b.n.GPUModel, b.n.MIGStrategy = model, "mixed"
	i := len(b.n.GPUs)
	g := cluster.GPU{Index: i, Model: model, Sharing: cluster.MIG, Replicas: 1}
	for k, p := range profiles {
		// Test profiles use the 80 GB family's names (1g.10gb … 7g.80gb).
		c, m, _ := cluster.ParseMIGProfile(p, model, 80)
		g.Units = append(g.Units, cluster.Unit{ID: fmt.Sprintf("%s/gpu%d/%s-%d", b.n.Name, i, p, k),
			Kind: cluster.MIGSlice, Profile: p, ComputeSlices: c, MemorySlices: m})
	}
	b.n.GPUs = append(b.n.GPUs, g)
	return b
}

// TimeSliced adds one GPU shared by time-slicing into replicas units;
// unit IDs are "<node>/gpu<i>/ts-<r>".
func (b *NodeBuilder) TimeSliced(model string, replicas int) *NodeBuilder {
	b.n.GPUModel = model
	i := len(b.n.GPUs)
	g := cluster.GPU{Index: i, Model: model, Sharing: cluster.TimeSlicing, Replicas: replicas}
	for r := range replicas {
		g.Units = append(g.Units, cluster.Unit{ID: fmt.Sprintf("%s/gpu%d/ts-%d", b.n.Name, i, r), Kind: cluster.TimeSlice})
	}
	b.n.GPUs = append(b.n.GPUs, g)
	return b
}

// Label sets a node label.
func (b *NodeBuilder) Label(k, v string) *NodeBuilder {
	if b.n.Labels == nil {
		b.n.Labels = map[string]string{}
	}
	b.n.Labels[k] = v
	return b
}

// Obj returns the node.
func (b *NodeBuilder) Obj() cluster.Node { return b.n }

// PodBuilder builds a cluster.Pod.
type PodBuilder struct{ p cluster.Pod }

// Pod starts a pod in namespace ns, owned by a Deployment of the same name.
func Pod(ns, name string) *PodBuilder {
	return &PodBuilder{cluster.Pod{Namespace: ns, Name: name, Phase: "Running",
		Owner: cluster.Owner{Kind: "Deployment", Name: name}, Containers: []cluster.Container{{Name: "main"}}}}
}

// On places the pod on node.
func (b *PodBuilder) On(node string) *PodBuilder { b.p.Node = node; return b }

// Owner sets the top-level owner.
func (b *PodBuilder) Owner(kind, name string) *PodBuilder {
	b.p.Owner = cluster.Owner{Kind: kind, Name: name}
	return b
}

// Label sets a pod label.
func (b *PodBuilder) Label(k, v string) *PodBuilder {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	b.p.Labels[k] = v
	return b
}

// Life sets start and end (zero: outside the window).
func (b *PodBuilder) Life(start, end time.Time) *PodBuilder {
	b.p.Start, b.p.End = start, end
	return b
}

// Requests sets the first container's CPU (millicores) and memory (GiB).
func (b *PodBuilder) Requests(cpuMilli, memGiB int64) *PodBuilder {
	b.p.Containers[0].CPURequestMilli, b.p.Containers[0].MemoryRequest = cpuMilli, memGiB<<30
	return b
}

// Holds adds a held GPU unit with constant activity over seconds of
// samples; a negative activity leaves the unit unmeasured.
func (b *PodBuilder) Holds(unitID string, activity, seconds float64) *PodBuilder {
	h := cluster.Holding{UnitID: unitID}
	if activity >= 0 {
		h.Activity = &usage.Activity{}
		h.Activity.Add(activity, seconds)
	}
	b.p.GPUs = append(b.p.GPUs, h)
	if b.p.Containers[0].GPURequests == nil {
		b.p.Containers[0].GPURequests = map[string]int64{}
	}
	b.p.Containers[0].GPURequests["nvidia.com/gpu"]++
	return b
}

// Obj returns the pod.
func (b *PodBuilder) Obj() cluster.Pod { return b.p }

// Window is a window of hours starting at 2026-01-01T00:00:00Z.
func Window(hours int) cluster.Window {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return cluster.Window{Start: start, End: start.Add(time.Duration(hours) * time.Hour)}
}

// At is the time hours after Window's start.
func At(hours float64) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(hours * float64(time.Hour)))
}

// Prepare runs cluster.Prepare on s and fails tb when s is inconsistent.
func Prepare(tb testing.TB, s *cluster.Snapshot) *cluster.Prepared {
	tb.Helper()
	p, err := cluster.Prepare(s)
	if err != nil {
		tb.Fatalf("preparing the test snapshot: %v", err)
	}
	return p
}
