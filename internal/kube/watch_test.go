package kube

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// clock is a settable test clock.
type clock struct{ t atomic.Pointer[time.Time] }

func (c *clock) now() time.Time  { return *c.t.Load() }
func (c *clock) set(t time.Time) { c.t.Store(&t) }

func watch(t *testing.T, c *Client, clk *clock) *Watcher {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := c.Watch(ctx, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

func heldUnits(s *cluster.Snapshot) map[string][]string {
	out := map[string][]string{}
	for _, p := range s.Pods {
		for _, h := range p.GPUs {
			out[p.Key()] = append(out[p.Key()], h.UnitID)
		}
	}
	return out
}

// eventually polls cond for up to 5 s: informers see changes asynchronously.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: not within 5 s", what)
}

// The watcher's snapshot equals the list-based one on the same cluster,
// and taking snapshots lists nothing more: one list per resource at start.
func TestWatcherSnapshotsWithoutRelisting(t *testing.T) {
	t.Parallel()
	now := t0.Add(24 * time.Hour)
	c := fakeCluster()
	want, err := c.Snapshot(context.Background(), now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{}
	clk.set(now)
	cs := c.Interface.(*fake.Clientset)
	lists := func() int {
		n := 0
		for _, a := range cs.Actions() {
			if a.GetVerb() == "list" {
				n++
			}
		}
		return n
	}
	listed := lists()
	w := watch(t, c, clk)
	before := lists() - listed
	var got *cluster.Snapshot
	for range 3 {
		if got, err = w.Snapshot(now, 24*time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if after := lists() - listed; after != before || before != 11 {
		t.Errorf("lists: %d at start (want 11: nodes, pods, ReplicaSets, Jobs, the four DRA resources, HPAs, ValidatingAdmissionPolicies and their bindings), %d after three snapshots", before, after)
	}
	if diff := cmp.Diff(heldUnits(want), heldUnits(got)); diff != "" {
		t.Errorf("units (-list +watch):\n%s", diff)
	}
	if len(got.Pods) != len(want.Pods) || len(got.Nodes) != len(want.Nodes) {
		t.Errorf("%d pods, %d nodes; the list read %d, %d", len(got.Pods), len(got.Nodes), len(want.Pods), len(want.Nodes))
	}
}

// A deleted pod stays in later snapshots, ended when its deletion was
// seen, with the units it held; a pod started later does not take them
// from it, and running pods keep their units when an earlier one leaves.
func TestWatcherRemembersDeletedPodsAndKeepsUnits(t *testing.T) {
	t.Parallel()
	now := t0.Add(24 * time.Hour)
	c := fakeCluster()
	clk := &clock{}
	clk.set(now)
	w := watch(t, c, clk)
	first, _ := w.Snapshot(now, 24*time.Hour)
	before := heldUnits(first)
	gone := now.Add(5 * time.Minute)
	clk.set(gone)
	if err := c.Interface.CoreV1().Pods("ml").Delete(context.Background(), "early", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the watcher sees the deletion", func() bool { return w.Counts()["pods"] == 5 })
	late := pod("ml", "late", "h100-a", gone.Add(time.Minute), "nvidia.com/gpu", "1")
	if _, err := c.Interface.CoreV1().Pods("ml").Create(context.Background(), late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the watcher sees the new pod", func() bool { return w.Counts()["pods"] == 6 })
	s, err := w.Snapshot(gone.Add(10*time.Minute), 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	after := heldUnits(s)
	if !slices.Equal(after["ml/early"], before["ml/early"]) || !slices.Equal(after["ml/train-abc-1"], before["ml/train-abc-1"]) {
		t.Errorf("units moved: before %v, after %v", before, after)
	}
	for _, p := range s.Pods {
		if p.Key() == "ml/early" && !p.End.Equal(gone) {
			t.Errorf("deleted pod ends %v, want %v (when the deletion was seen)", p.End, gone)
		}
	}
	if _, err := cluster.Prepare(s); err != nil {
		t.Errorf("snapshot does not prepare: %v", err)
	}
	old, _ := w.Snapshot(gone.Add(48*time.Hour), time.Hour)
	for _, p := range old.Pods {
		if p.Key() == "ml/early" {
			t.Error("a pod deleted before the window is still remembered")
		}
	}
	if w.Health() != nil {
		t.Errorf("health: %v", w.Health())
	}
}

// Pods are cached converted: what the snapshot reads, nothing more, and
// the same pod the one-shot list converts (owner and end included).
func TestCachedPodIsTheListedPod(t *testing.T) {
	t.Parallel()
	own := newOwners(nil, []batchv1.Job{*job("ml", "nightly-1", "nightly")})
	running := pod("ml", "x", "n", t0, "nvidia.com/gpu", "1")
	running.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	running.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "SECRET", Value: "s3cr3t"}}
	ended := pod("ml", "nightly-1-abc", "n", t0, "nvidia.com/gpu", "1")
	ended.OwnerReferences = controller("Job", "nightly-1")
	ended.Status.Phase = corev1.PodSucceeded
	noFinish := pod("ml", "lost", "n", t0, "cpu", "1")
	noFinish.Status.Phase = corev1.PodFailed
	finishedAt := metav1.NewTime(t0.Add(time.Hour))
	ended.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: finishedAt}}}}
	now := t0.Add(5 * time.Hour)
	for _, p := range []*corev1.Pod{running, ended, noFinish} {
		got, _ := strip(p)
		c := got.(*cachedPod)
		if diff := cmp.Diff(convertPod(p, own.of(p), now), c.model(own, now)); diff != "" {
			t.Errorf("%s: cached pod differs (-listed +cached):\n%s", p.Name, diff)
		}
	}
}
