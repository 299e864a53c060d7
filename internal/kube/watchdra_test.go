package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// gpuHours is each pod's GPU-hours (unit fraction × held hours in the
// window), from the prepared snapshot: what the cost engine prices.
func gpuHours(t *testing.T, s *cluster.Snapshot) map[string]float64 {
	t.Helper()
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for i := range p.Pods() {
		pod := &p.Pods()[i]
		start, end := pod.Start, s.Window.End
		if start.Before(s.Window.Start) {
			start = s.Window.Start
		}
		if !pod.End.IsZero() && pod.End.Before(end) {
			end = pod.End
		}
		for _, h := range pod.GPUs {
			out[pod.Key()] += p.Index().Units[h.UnitID].Unit.Fraction * end.Sub(start).Hours()
		}
	}
	return out
}

// serve's watcher reads DRA as collect does: the same cluster gives the
// same snapshot (GPUs, units, fractions, holders, the DRA section) and so
// the same GPU-hours, hence the same dollars, through both paths.
func TestWatcherReadsDRAAsTheList(t *testing.T) {
	t.Parallel()
	now := t0.Add(24 * time.Hour)
	c := draCluster()
	want, err := c.Snapshot(context.Background(), now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{}
	clk.set(now)
	w := watch(t, c, clk)
	got, err := w.Snapshot(now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got.DRA == nil || len(got.DRA.Claims) != 4 {
		t.Fatalf("watched DRA section %+v, want the four GPU claims", got.DRA)
	}
	for _, d := range []struct {
		what      string
		want, got any
	}{{"nodes", want.Nodes, got.Nodes}, {"pods", want.Pods, got.Pods}, {"DRA", want.DRA, got.DRA}, {"partial", want.Partial, got.Partial}} {
		if diff := cmp.Diff(d.want, d.got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-list +watch):\n%s", d.what, diff)
		}
	}
	hw, hg := gpuHours(t, want), gpuHours(t, got)
	// Hand-computed for the claims' pods: train holds a whole GPU 24 h;
	// s-a 1/3 from 1 h (23/3 h); nb 1/7 × 24 h; m-a 1/4 × 24 h.
	for pod, h := range map[string]float64{"ml/train": 24, "ml/s-a": 23.0 / 3, "dev/nb": 24.0 / 7, "dev/m-a": 6} {
		if d := hg[pod] - h; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: %.4f GPU-hours watched, want %.4f", pod, hg[pod], h)
		}
	}
	if diff := cmp.Diff(hw, hg, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("GPU-hours (-list +watch):\n%s", diff)
	}
}

// A claim allocated after the watcher started is billed from the next
// snapshot, without a relist; a pod whose claim's split changes when a
// sharer leaves keeps no unit another pod holds during its life.
func TestWatcherFollowsClaims(t *testing.T) {
	t.Parallel()
	now := t0.Add(24 * time.Hour)
	c := draCluster()
	clk := &clock{}
	clk.set(now)
	w := watch(t, c, clk)
	ctx := context.Background()
	if _, err := c.Interface.CoreV1().Pods("ml").Create(ctx, pod("ml", "late", "dra-a", now.Add(-time.Hour)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Interface.ResourceV1().ResourceClaims("ml").Create(ctx, claim("ml", "late-gpu", "gpu.nvidia.com", "dra-a", []string{"gpu-2"}, "late"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the watcher sees the claim", func() bool { return w.Counts()["resourceclaims.resource.k8s.io"] == 5 })
	s, err := w.Snapshot(now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got := heldUnits(s)["ml/late"]; !cmp.Equal(got, []string{"dra-a/gpu-2"}) {
		t.Errorf("late holds %v, want [dra-a/gpu-2]", got)
	}
	// s-c leaves: the shared GPU is split in two from now on; s-c's old
	// share (share-2) no longer exists, and it takes nobody else's.
	gone := now.Add(time.Minute)
	clk.set(gone)
	if err := c.Interface.CoreV1().Pods("ml").Delete(ctx, "s-c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	sh, err := c.Interface.ResourceV1().ResourceClaims("ml").Get(ctx, "shared-gpu", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sh.Status.ReservedFor = sh.Status.ReservedFor[:2]
	if _, err := c.Interface.ResourceV1().ResourceClaims("ml").UpdateStatus(ctx, sh, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The pod and claim informers are independent: wait until both the
	// deletion and the new split are seen before judging the snapshot.
	eventually(t, "the watcher sees s-c end and the split change", func() bool {
		s, _ := w.Snapshot(gone, 24*time.Hour)
		return podEnded(s, "ml/s-c") &&
			len(heldUnits(s)["ml/s-a"]) == 1 && heldUnits(s)["ml/s-a"][0] == "dra-a/gpu-1/share-0" && len(s.DRA.Claims) == 5 &&
			len(s.DRA.Claims[1].Pods) == 2
	})
	s, err = w.Snapshot(gone, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cluster.Prepare(s); err != nil {
		t.Fatalf("snapshot after the split changed does not prepare: %v", err)
	}
	if got := heldUnits(s)["ml/s-c"]; len(got) != 0 {
		t.Errorf("s-c, ended, holds %v: its share no longer exists", got)
	}
	if !slicesContain(s.Notes, "no longer exist as they were") {
		t.Errorf("no note for the unit s-c lost: %q", s.Notes)
	}
}

// podEnded says whether the snapshot holds the pod with an end time.
func podEnded(s *cluster.Snapshot, key string) bool {
	for _, p := range s.Pods {
		if p.Key() == key {
			return !p.End.IsZero()
		}
	}
	return false
}

func slicesContain(notes []string, sub string) bool {
	for _, n := range notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

// The watcher runs without DRA on a cluster that does not serve
// resource.k8s.io/v1, and with a partial snapshot that says so for a role
// that may not list or watch it; the rest of the cluster is watched.
func TestWatcherDRAForbiddenIsPartialNotServedIsNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		err     error
		partial bool
	}{
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, "", nil), true},
		{"not served", apierrors.NewNotFound(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, ""), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := draCluster()
			c.Interface.(*fake.Clientset).PrependReactor("list", "resourceclaims", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tt.err
			})
			now := t0.Add(24 * time.Hour)
			clk := &clock{}
			clk.set(now)
			w := watch(t, c, clk)
			s, err := w.Snapshot(now, 24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if s.DRA != nil {
				t.Errorf("DRA section %+v from an unreadable API", s.DRA)
			}
			if got := len(s.Partial) == 1 && strings.Contains(s.Partial[0], "resourceclaims.resource.k8s.io is forbidden"); got != tt.partial {
				t.Errorf("partial %q, want partial=%v", s.Partial, tt.partial)
			}
			if len(s.Pods) == 0 || w.Health() != nil {
				t.Errorf("%d pods, health %v: the rest of the cluster is watched", len(s.Pods), w.Health())
			}
		})
	}
}
