package cluster_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// TestLowModelValidatedOnRead (issue 31, low): what no cluster can hold
// is refused by cluster.Prepare, each refusal naming the object: negative cluster.GPU
// memory, negative OOM kills, a memory or CPU limit below its request, a
// unit fraction outside [0, 1], time-slice replicas past MaxReplicas.
func TestLowModelValidatedOnRead(t *testing.T) {
	t.Parallel()
	base := func() *cluster.Snapshot {
		return &cluster.Snapshot{Window: cluster.Window{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
			Nodes: []cluster.Node{{Name: "n1", GPUs: []cluster.GPU{{Index: 0, Sharing: cluster.Exclusive, Replicas: 1, MemoryMiB: 81920, Units: []cluster.Unit{{ID: "n1/gpu0", Kind: cluster.WholeGPU}}}}}},
			Pods: []cluster.Pod{{Namespace: "ml", Name: "p", Node: "n1", Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
				Containers: []cluster.Container{{Name: "c", CPURequestMilli: 1000, CPULimitMilli: 2000, MemoryRequest: 1 << 30, MemoryLimit: 2 << 30}}}}}
	}
	if _, err := cluster.Prepare(base()); err != nil {
		t.Fatalf("the valid snapshot: %v", err)
	}
	for _, tt := range []struct {
		name string
		edit func(s *cluster.Snapshot)
		want string
	}{
		{"negative cluster.GPU memory", func(s *cluster.Snapshot) { s.Nodes[0].GPUs[0].MemoryMiB = -1 }, "node n1 gpu 0: memory -1 MiB is negative"},
		{"negative OOM kills", func(s *cluster.Snapshot) { s.Pods[0].OOMKills = -3 }, "pod ml/p: -3 OOM kills is negative"},
		{"memory limit below request", func(s *cluster.Snapshot) { s.Pods[0].Containers[0].MemoryLimit = 1 << 20 },
			`pod ml/p container "c": memory limit 1048576 bytes is below its request 1073741824`},
		{"CPU limit below request", func(s *cluster.Snapshot) { s.Pods[0].Containers[0].CPULimitMilli = 500 }, `pod ml/p container "c": CPU limit 500m is below its request 1000m`},
		{"unit fraction -1", func(s *cluster.Snapshot) { s.Nodes[0].GPUs[0].Units[0].Fraction = -1 }, "node n1 gpu 0 unit n1/gpu0: fraction -1 is not between 0 and 1"},
		{"unit fraction 50", func(s *cluster.Snapshot) { s.Nodes[0].GPUs[0].Units[0].Fraction = 50 }, "node n1 gpu 0 unit n1/gpu0: fraction 50 is not between 0 and 1"},
		{"2^62 time-slice replicas", func(s *cluster.Snapshot) {
			g := &s.Nodes[0].GPUs[0]
			g.Sharing, g.Replicas, g.Units[0].Kind = cluster.TimeSlicing, 1<<62, cluster.TimeSlice
		}, "node n1 gpu 0: 4611686018427387904 time-slice replicas is more than 1024"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			tt.edit(s)
			if _, err := cluster.Prepare(s); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Prepare: %v; want %q", err, tt.want)
			}
		})
	}
}

// TestLowPodOffTheSnapshotIsNoted (issue 31, low): a pod without GPUs on
// a node the snapshot lacks is named in a note (once, however often the
// snapshot is prepared), not dropped in silence.
func TestLowPodOffTheSnapshotIsNoted(t *testing.T) {
	t.Parallel()
	s := &cluster.Snapshot{Window: cluster.Window{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		Nodes: []cluster.Node{{Name: "n1"}},
		Pods:  []cluster.Pod{{Namespace: "web", Name: "api", Node: "gone-1", Containers: []cluster.Container{{Name: "c", CPURequestMilli: 100}}}}}
	for range 2 {
		if _, err := cluster.Prepare(s); err != nil {
			t.Fatal(err)
		}
	}
	want := "1 pod(s) without GPUs run on nodes the snapshot does not have (the first: web/api on node gone-1): they are left out of every figure"
	if len(s.Notes) != 1 || s.Notes[0] != want {
		t.Errorf("notes %q; want once %q", s.Notes, want)
	}
}
