package snapshot

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// TestEqualPodMapsAreShared: pods with equal labels, node selectors or
// tolerations read back sharing one map or list (each pod had its own
// when written), pods with different ones do not, and every pod's are
// what was written.
func TestEqualPodMapsAreShared(t *testing.T) {
	t.Parallel()
	s := randomSnapshot(testRand(), 1, 6)
	for i := range s.Pods {
		p := &s.Pods[i]
		p.Labels = map[string]string{"app": "web", "team": "a"}
		p.NodeSelector = map[string][]string{"pool": {"gpu"}}
		p.Tolerations = []cluster.Toleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}}
		if i >= 4 { // two pods of another workload
			p.Labels = map[string]string{"app": "batch"}
			p.NodeSelector = map[string][]string{"pool": {"gpu", "spot"}}
			p.Tolerations = append(p.Tolerations, cluster.Toleration{Key: "spot", Operator: "Equal", Value: "true", Effect: "NoSchedule"})
		}
	}
	got := mustRead(t, encodeV2(t, s))
	for i := range got.Pods {
		w, g := &s.Pods[i], &got.Pods[i]
		if !maps.Equal(w.Labels, g.Labels) || !maps.EqualFunc(w.NodeSelector, g.NodeSelector, func(a, b []string) bool { return reflect.DeepEqual(a, b) }) ||
			!slices.Equal(w.Tolerations, g.Tolerations) {
			t.Fatalf("pod %d: labels %v, selector %v, tolerations %v; wrote %v, %v, %v", i, g.Labels, g.NodeSelector, g.Tolerations, w.Labels, w.NodeSelector, w.Tolerations)
		}
	}
	same := func(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }
	p := got.Pods
	for _, c := range []struct {
		i, j  int
		share bool
	}{{0, 3, true}, {4, 5, true}, {0, 4, false}} {
		if same(p[c.i].Labels, p[c.j].Labels) != c.share || same(p[c.i].NodeSelector, p[c.j].NodeSelector) != c.share ||
			same(p[c.i].Tolerations, p[c.j].Tolerations) != c.share {
			t.Errorf("pods %d and %d: share their maps %v, want %v", c.i, c.j, !c.share, c.share)
		}
	}
}

// TestEqualGPURequestsAreShared: containers with equal GPU requests read
// back sharing one map, those with other requests (or none) do not, and
// each container's requests are what was written, duplicate keys still
// rejected.
func TestEqualGPURequestsAreShared(t *testing.T) {
	t.Parallel()
	s := randomSnapshot(testRand(), 1, 4)
	want := []map[string]int64{{"nvidia.com/gpu": 1}, {"nvidia.com/gpu": 1}, {"nvidia.com/gpu": 2}, nil}
	for i := range s.Pods {
		s.Pods[i].Containers = []cluster.Container{{Name: "main", GPURequests: want[i]}}
	}
	got := mustRead(t, encodeV2(t, s))
	req := func(i int) map[string]int64 { return got.Pods[i].Containers[0].GPURequests }
	for i := range want {
		if !maps.Equal(req(i), want[i]) || (req(i) == nil) != (want[i] == nil) {
			t.Fatalf("pod %d: GPU requests %v, wrote %v", i, req(i), want[i])
		}
	}
	same := func(a, b map[string]int64) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	if !same(req(0), req(1)) || same(req(0), req(2)) {
		t.Errorf("equal requests share a map: %v, other requests: %v; want true, false", same(req(0), req(1)), same(req(0), req(2)))
	}
}
