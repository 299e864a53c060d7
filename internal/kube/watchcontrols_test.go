package kube

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func listsOf(actions []k8stesting.Action, resource string) int {
	n := 0
	for _, a := range actions {
		if a.GetVerb() == "list" && a.GetResource().Resource == resource {
			n++
		}
	}
	return n
}

// The watcher's controls equal the list's on the same cluster, and follow
// it: an HPA created and a ScaledObject deleted after the start show up in
// the next snapshot without a relist.
func TestWatcherReadsControlsAsTheList(t *testing.T) {
	t.Parallel()
	c := controlsCluster(t)
	want, err := c.Snapshot(context.Background(), t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cs, dc := c.Interface.(*fake.Clientset), c.Dynamic.(*dynamicfake.FakeDynamicClient)
	clk := &clock{}
	clk.set(t0)
	w := watch(t, c, clk)
	got, err := w.Snapshot(t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Controls, got.Controls); diff != "" {
		t.Errorf("controls (-list +watch):\n%s", diff)
	}
	if diff := cmp.Diff(wantControls(), got.Controls); diff != "" {
		t.Errorf("controls (-want +watch):\n%s", diff)
	}
	if len(got.Partial) != 0 {
		t.Errorf("partial %q, want none", got.Partial)
	}
	for res, n := range map[string]int{"horizontalpodautoscalers": 2, "validatingadmissionpolicies": 2, "validatingadmissionpolicybindings": 2} {
		if l := listsOf(cs.Actions(), res); l != n { // one by the list, one by the informer
			t.Errorf("%s listed %d times, want %d", res, l, n)
		}
	}
	hpas, sos := listsOf(cs.Actions(), "horizontalpodautoscalers"), listsOf(dc.Actions(), "scaledobjects")

	ctx := context.Background()
	one := int32(1)
	late := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "late"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "serve"},
			MinReplicas: &one, MaxReplicas: 3, Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType}}}}
	if _, err := cs.AutoscalingV2().HorizontalPodAutoscalers("ml").Create(ctx, late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := dc.Resource(kedaScaledObjects).Namespace("inference").Delete(ctx, "ocr", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	has := func(ctl *cluster.Controls, kind, key string) bool {
		return slices.ContainsFunc(ctl.Autoscalers, func(a cluster.Autoscaler) bool { return a.Kind == kind && a.Namespace+"/"+a.Name == key })
	}
	var s *cluster.Snapshot
	eventually(t, "the watcher sees the new HPA and the deleted ScaledObject", func() bool {
		s, _ = w.Snapshot(t0, time.Hour)
		return has(s.Controls, cluster.KindHPA, "ml/late") && !has(s.Controls, cluster.KindScaledObject, "inference/ocr")
	})
	if i := slices.IndexFunc(s.Controls.Autoscalers, func(a cluster.Autoscaler) bool { return a.Name == "late" }); s.Controls.Autoscalers[i].MaxReplicas != 3 ||
		s.Controls.Autoscalers[i].TargetName != "serve" {
		t.Errorf("the new HPA: %+v", s.Controls.Autoscalers[i])
	}
	if len(s.Controls.Autoscalers) != len(wantControls().Autoscalers) {
		t.Errorf("%d autoscalers, want %d (one created, one deleted)", len(s.Controls.Autoscalers), len(wantControls().Autoscalers))
	}
	if h, o := listsOf(cs.Actions(), "horizontalpodautoscalers"), listsOf(dc.Actions(), "scaledobjects"); h != hpas || o != sos {
		t.Errorf("relisted after the start: HPAs %d→%d, ScaledObjects %d→%d (want the watches to follow)", hpas, h, sos, o)
	}
	if w.Counts()[cluster.ResourceHPA] != 2 {
		t.Errorf("counts %v, want 2 HPAs cached", w.Counts())
	}
}

// As for the list: a control CRD not served is in NotServed, silently; a
// forbidden resource (a CRD or a built-in one) is a partial note and the
// rest is still watched; the watcher's controls and notes are the list's.
func TestWatcherControlsNotServedOrForbidden(t *testing.T) {
	t.Parallel()
	c := controlsCluster(t)
	dc := c.Dynamic.(*dynamicfake.FakeDynamicClient)
	dc.PrependReactor("list", "scaledobjects", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(kedaScaledObjects.GroupResource(), "")
	})
	dc.PrependReactor("list", "nodepools", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(karpenterPools.GroupResource(), "", nil)
	})
	c.Interface.(*fake.Clientset).PrependReactor("list", "validatingadmissionpolicybindings", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}, "", nil)
	})
	want, err := c.Snapshot(context.Background(), t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{}
	clk.set(t0)
	w := watch(t, c, clk)
	s, err := w.Snapshot(t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Controls, s.Controls); diff != "" {
		t.Errorf("controls (-list +watch):\n%s", diff)
	}
	if !cmp.Equal(s.Controls.NotServed, []string{cluster.ResourceScaledObject}) {
		t.Errorf("not served %v, want the ScaledObjects", s.Controls.NotServed)
	}
	if s.Controls.Reads(cluster.ResourceNodePool) || s.Controls.Reads(cluster.ResourceVAPBinding) || s.Controls.Knows(cluster.ResourceNodePool) ||
		!s.Controls.Reads(cluster.ResourceVPA) || !s.Controls.Reads(cluster.ResourceHPA) {
		t.Errorf("read %v: want neither NodePools nor bindings (forbidden), the rest", s.Controls.Read)
	}
	if len(s.Controls.Bindings) != 0 || len(s.Controls.NodePools) != 0 {
		t.Errorf("objects of forbidden resources: %+v %+v", s.Controls.Bindings, s.Controls.NodePools)
	}
	if len(s.Partial) != 2 || len(want.Partial) != 2 {
		t.Fatalf("partial: watch %q, list %q; want the two forbidden resources each", s.Partial, want.Partial)
	}
	for i, res := range []string{cluster.ResourceVAPBinding, cluster.ResourceNodePool} {
		if !strings.Contains(s.Partial[i], "watching "+res+" is forbidden") || !strings.Contains(want.Partial[i], "listing "+res+" is forbidden") {
			t.Errorf("partial %d: watch %q, list %q; want %s named", i, s.Partial[i], want.Partial[i], res)
		}
		if _, lost, _ := strings.Cut(s.Partial[i], "): "); !strings.HasSuffix(want.Partial[i], lost) {
			t.Errorf("partial %d: watch says %q lost, the list %q", i, lost, want.Partial[i])
		}
	}
	if w.Health() != nil {
		t.Errorf("health: %v", w.Health())
	}
}

// Without a dynamic client the watcher reads the built-in kinds only, as
// the list does.
func TestWatcherControlsWithoutDynamicClient(t *testing.T) {
	t.Parallel()
	c := controlsCluster(t)
	c.Dynamic = nil
	want, err := c.Snapshot(context.Background(), t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{}
	clk.set(t0)
	s, err := watch(t, c, clk).Snapshot(t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Controls, s.Controls); diff != "" {
		t.Errorf("controls (-list +watch):\n%s", diff)
	}
	if !cmp.Equal(s.Controls.Read, []string{cluster.ResourceHPA, cluster.ResourceVAP, cluster.ResourceVAPBinding}) {
		t.Errorf("read %v, want the built-in kinds", s.Controls.Read)
	}
}
