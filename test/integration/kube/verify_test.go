//go:build integration

package kube

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// runID labels every object this test creates.
const runID = "plans"

// TestPlansBindOnTheRealScheduler hands gpuwise plans to the real
// kube-scheduler. For each case (the demo plan, simulated and generated
// clusters) it creates the plan's kept nodes as KWOK nodes with the
// extended resources, taints and labels the plan gives them, then the
// pods without nodeName, in two variants side by side:
//
//   - pin: every pod selects its plan node by kubernetes.io/hostname. All
//     must bind, and each node's bound requests per resource (GPU, MIG
//     profile, time-slice replicas, CPU, memory, pods) equal the plan's:
//     each kept node admits exactly what the plan puts on it, taints,
//     selectors and GPU model included.
//   - free: pods name no node (except those the plan pins: bare pods and
//     pods kept with their current shape on their node), use the
//     bin-packing profile, and arrive most constrained first, then
//     largest. All must bind, totals per resource equal the plan's: the
//     whole set fits the kept nodes under the scheduler's own choices.
//
// Then the plan's unplaced workloads are created as pods: each must stay
// Pending, Unschedulable, with a FailedScheduling event whose message
// names the plan's reason (the free variant only those whose reason does
// not depend on where the other pods went). docs/planning.md, "Verified
// by the real scheduler", says what this proves and what it cannot.
func TestPlansBindOnTheRealScheduler(t *testing.T) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, _ := admin(t)
	cases := planCases(t)
	var runs, all []*verifyRun
	for _, c := range cases {
		for _, v := range []variant{pinnedVariant, freeVariant} {
			runs = append(runs, newRun(c, v))
		}
	}
	t.Logf("planned %d cases in %.1fs", len(cases), time.Since(began).Seconds())
	t.Cleanup(func() { cleanup(t, cs, all) })
	w := watchRun(ctx, t, cs)
	createPriorityClasses(ctx, t, cs)
	for len(runs) > 0 {
		all = append(all, runs...)
		runs = verifyRound(ctx, t, cs, w, runs, began)
	}
	t.Logf("verified %d plans in %.1fs", len(cases), time.Since(began).Seconds())
}

// maxAttempts bounds the free variant's arrival orders per case.
const maxAttempts = 4

// verifyRound creates the runs' nodes and pods, waits for the scheduler
// and checks each run. A free run with refused pods is not checked but
// returned to be tried again with those pods first, up to maxAttempts:
// a greedy scheduler can take the only node a later pod fits, which says
// nothing about the plan (the pin variant shows the arrangement exists).
func verifyRound(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, w *runWatch, runs []*verifyRun, began time.Time) []*verifyRun {
	t.Helper()
	createSetup(ctx, t, cs, runs)
	w.waitNodesReady(t, runs)
	t.Logf("%d nodes Ready %.1fs after the start", countNodes(runs), time.Since(began).Seconds())

	createPods(ctx, t, cs, runs, func(r *verifyRun) []*corev1.Pod { return r.placed })
	placed := w.waitSettled(t, func(r *verifyRun) []*corev1.Pod { return r.placed }, runs)
	t.Logf("%d placed pods settled %.1fs after the start", countPods(runs, false), time.Since(began).Seconds())

	createPods(ctx, t, cs, runs, func(r *verifyRun) []*corev1.Pod { return r.pending })
	unplaced := w.waitSettled(t, func(r *verifyRun) []*corev1.Pod { return r.pending }, runs)
	t.Logf("%d unplaced pods settled %.1fs after the start", countPods(runs, true), time.Since(began).Seconds())

	nodes := w.nodesByName()
	var retry []*verifyRun
	for _, r := range runs {
		if refused := r.refused(placed); r.v == freeVariant && len(refused) > 0 && r.attempt < maxAttempts {
			t.Logf("%s: the scheduler refused %v in this arrival order; trying again with them first", r.ns, refused)
			retry = append(retry, r.again(refused))
			continue
		}
		t.Run(r.ns, func(t *testing.T) {
			r.checkNodes(t, nodes)
			r.checkPlaced(t, placed)
			r.checkUnplaced(ctx, t, cs, unplaced)
		})
	}
	return retry
}

// refused are the workloads of the placed pods the scheduler did not bind.
func (r *verifyRun) refused(pods map[string]*corev1.Pod) []string {
	var out []string
	for _, want := range r.placed {
		if p := pods[r.ns+"/"+want.Name]; p == nil || p.Spec.NodeName == "" {
			out = append(out, want.Annotations[annoID])
		}
	}
	return out
}

func countNodes(runs []*verifyRun) int {
	n := 0
	for _, r := range runs {
		n += len(r.nodes)
	}
	return n
}

func countPods(runs []*verifyRun, pending bool) int {
	n := 0
	for _, r := range runs {
		if pending {
			n += len(r.pending)
		} else {
			n += len(r.placed)
		}
	}
	return n
}

// createPriorityClasses creates the free variant's ordering levels.
func createPriorityClasses(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	t.Helper()
	never := corev1.PreemptNever
	for l := range priorityLevels {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: priorityClass(l),
			Labels: map[string]string{lblRun: runID}}, Value: int32(1000 + priorityLevels - l), PreemptionPolicy: &never}
		if _, err := cs.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating priority class %s: %v", pc.Name, err)
		}
	}
}

// createSetup creates the runs' namespaces and nodes.
func createSetup(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, runs []*verifyRun) {
	t.Helper()
	var nodes []*corev1.Node
	for _, r := range runs {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.ns, Labels: map[string]string{lblRun: runID}}}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating namespace %s: %v", r.ns, err)
		}
		nodes = append(nodes, r.nodes...)
	}
	inParallel(t, len(nodes), func(i int) error {
		_, err := cs.CoreV1().Nodes().Create(ctx, nodes[i], metav1.CreateOptions{})
		return err
	})
}

// createPods creates each run's pods; the free variant's one ordering
// level after the other (see order).
func createPods(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, runs []*verifyRun, pick func(*verifyRun) []*corev1.Pod) {
	t.Helper()
	byBucket := map[string][]*corev1.Pod{}
	for _, r := range runs {
		for _, p := range pick(r) {
			byBucket[p.Spec.PriorityClassName] = append(byBucket[p.Spec.PriorityClassName], p)
		}
	}
	keys := make([]string, 0, len(byBucket))
	for k := range byBucket {
		keys = append(keys, k)
	}
	sort.Strings(keys) // level 0 first; "" (the pinned variant's) too, it has no order
	for _, k := range keys {
		pods := byBucket[k]
		inParallel(t, len(pods), func(i int) error {
			_, err := cs.CoreV1().Pods(pods[i].Namespace).Create(ctx, pods[i], metav1.CreateOptions{})
			return err
		})
	}
}

// inParallel runs f(0..n-1) on 16 workers and fails the test on the first
// error.
func inParallel(t *testing.T, n int, f func(i int) error) {
	t.Helper()
	next := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range min(16, n) {
		wg.Go(func() {
			for i := range next {
				if err := f(i); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// cleanup deletes what the test created, pods and nodes in parallel (the
// API server's DeleteCollection deletes one object at a time), and checks
// they are gone, so later tests see the control plane as it was.
func cleanup(t *testing.T, cs *kubernetes.Clientset, runs []*verifyRun) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var pods []*corev1.Pod
	var nodes []string
	for _, r := range runs {
		pods = append(append(pods, r.placed...), r.pending...)
		for _, n := range r.nodes {
			nodes = append(nodes, n.Name)
		}
	}
	now := int64(0)
	gone := func(err error) error {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	inParallel(t, len(pods), func(i int) error {
		return gone(cs.CoreV1().Pods(pods[i].Namespace).Delete(ctx, pods[i].Name, metav1.DeleteOptions{GracePeriodSeconds: &now}))
	})
	inParallel(t, len(nodes), func(i int) error {
		return gone(cs.CoreV1().Nodes().Delete(ctx, nodes[i], metav1.DeleteOptions{}))
	})
	for _, r := range runs {
		if err := gone(cs.CoreV1().Namespaces().Delete(ctx, r.ns, metav1.DeleteOptions{})); err != nil {
			t.Errorf("cleanup: deleting namespace %s: %v", r.ns, err)
		}
	}
	sel := metav1.ListOptions{LabelSelector: lblRun + "=" + runID}
	if err := cs.SchedulingV1().PriorityClasses().DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
		t.Errorf("cleanup: deleting priority classes: %v", err)
	}
	waitFor(t, "the verification's pods and nodes to be deleted", 30*time.Second, func() (bool, string) {
		pods, err1 := cs.CoreV1().Pods("").List(ctx, sel)
		nodes, err2 := cs.CoreV1().Nodes().List(ctx, sel)
		if err1 != nil || err2 != nil {
			return false, fmt.Sprint(err1, err2)
		}
		return len(pods.Items) == 0 && len(nodes.Items) == 0, fmt.Sprintf("%d pods, %d nodes left", len(pods.Items), len(nodes.Items))
	})
	t.Logf("cleaned up in %.1fs", time.Since(began).Seconds())
}
