//go:build integration

package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// runWatch follows the run's pods and nodes with informers (list, then
// watch), so waiting costs no polling of the API server.
type runWatch struct {
	pods, nodes cache.Store
	changed     chan struct{}
	mu          sync.Mutex
	last        time.Time // last event
}

func watchRun(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) *runWatch {
	t.Helper()
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = lblRun + "=" + runID
	}))
	w := &runWatch{changed: make(chan struct{}, 1)}
	notify := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { w.poke() },
		UpdateFunc: func(any, any) { w.poke() },
		DeleteFunc: func(any) { w.poke() },
	}
	pi, ni := f.Core().V1().Pods().Informer(), f.Core().V1().Nodes().Informer()
	for _, inf := range []cache.SharedIndexInformer{pi, ni} {
		if _, err := inf.AddEventHandler(notify); err != nil {
			t.Fatal(err)
		}
	}
	w.pods, w.nodes = pi.GetStore(), ni.GetStore()
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("informer for %v did not sync", typ)
		}
	}
	t.Cleanup(f.Shutdown)
	return w
}

func (w *runWatch) poke() {
	w.mu.Lock()
	w.last = time.Now()
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

func (w *runWatch) quietFor() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Since(w.last)
}

// until evaluates cond after every event (and at least every 500 ms)
// until it holds, failing the test after timeout with cond's last state.
func (w *runWatch) until(t *testing.T, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.After(timeout)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, state := cond()
		if ok {
			return
		}
		select {
		case <-w.changed:
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out after %s waiting for %s; %s", timeout, what, state)
		}
	}
}

// waitNodesReady waits until the runs' nodes are Ready without the
// not-ready taint (KWOK plays the kubelet, the node lifecycle controller
// lifts the taint).
func (w *runWatch) waitNodesReady(t *testing.T, runs []*verifyRun) {
	t.Helper()
	var names []string
	for _, r := range runs {
		for _, n := range r.nodes {
			names = append(names, n.Name)
		}
	}
	w.until(t, "the KWOK nodes to be Ready", time.Minute, func() (bool, string) {
		ready := 0
		for _, name := range names {
			if o, ok, _ := w.nodes.GetByKey(name); ok && nodeReady(o.(*corev1.Node)) {
				ready++
			}
		}
		return ready == len(names), fmt.Sprintf("%d of %d nodes Ready", ready, len(names))
	})
}

func nodeReady(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady {
			return false
		}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitSettled waits until every pod pick gives is bound, or until each is
// bound or Unschedulable and nothing has changed for 1 s (the scheduler
// retries a pod when the cluster changes, so a refusal is final only
// once the cluster is quiet). It returns the pods by namespace/name.
func (w *runWatch) waitSettled(t *testing.T, pick func(*verifyRun) []*corev1.Pod, runs []*verifyRun) map[string]*corev1.Pod {
	t.Helper()
	want := map[string]bool{}
	for _, r := range runs {
		for _, p := range pick(r) {
			want[p.Namespace+"/"+p.Name] = true
		}
	}
	got := map[string]*corev1.Pod{}
	w.until(t, "the scheduler to bind or refuse every pod", 90*time.Second, func() (bool, string) {
		clear(got)
		bound, refused := 0, 0
		var waiting []string
		for key := range want {
			o, ok, _ := w.pods.GetByKey(key)
			if !ok {
				waiting = append(waiting, key)
				continue
			}
			p := o.(*corev1.Pod)
			got[key] = p
			switch {
			case p.Spec.NodeName != "":
				bound++
			case isUnschedulable(p):
				refused++
			default:
				waiting = append(waiting, key)
			}
		}
		sort.Strings(waiting)
		state := fmt.Sprintf("%d bound, %d refused, %d not tried: %s", bound, refused, len(waiting), strings.Join(first(waiting, 5), " "))
		if bound == len(want) {
			return true, state
		}
		return len(waiting) == 0 && w.quietFor() > time.Second, state
	})
	return got
}

func (w *runWatch) nodesByName() map[string]*corev1.Node {
	out := map[string]*corev1.Node{}
	for _, o := range w.nodes.List() {
		n := o.(*corev1.Node)
		out[n.Name] = n
	}
	return out
}

func first(s []string, n int) []string {
	return s[:min(n, len(s))]
}
