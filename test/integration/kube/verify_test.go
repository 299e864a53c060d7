//go:build integration

package kube

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
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
//   - free: pods name no node (pods the plan does not move excepted) and
//     arrive largest first, as the planner packs them. All must bind:
//     the whole set fits the kept nodes under the scheduler's own choices.
//
// Then the plan's unplaced workloads are created as pods: each must stay
// Pending, Unschedulable, with a FailedScheduling event whose message
// names the plan's reason.
func TestPlansBindOnTheRealScheduler(t *testing.T) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, _ := admin(t)
	cases := planCases(t)
	var runs []*verifyRun
	for _, c := range cases {
		for _, v := range []variant{pinnedVariant, freeVariant} {
			runs = append(runs, newRun(c, v))
		}
	}
	t.Logf("planned %d cases in %.1fs", len(cases), time.Since(began).Seconds())
	t.Cleanup(func() { cleanup(t, cs, runs) })

	w := watchRun(ctx, t, cs)
	createSetup(ctx, t, cs, runs)
	w.waitNodesReady(t, countNodes(runs))
	t.Logf("%d nodes Ready %.1fs after the start", countNodes(runs), time.Since(began).Seconds())

	createPods(ctx, t, cs, runs, func(r *verifyRun) []*corev1.Pod { return r.placed })
	placed := w.waitSettled(t, func(r *verifyRun) []*corev1.Pod { return r.placed }, runs)
	t.Logf("%d placed pods settled %.1fs after the start", countPods(runs, false), time.Since(began).Seconds())

	createPods(ctx, t, cs, runs, func(r *verifyRun) []*corev1.Pod { return r.pending })
	unplaced := w.waitSettled(t, func(r *verifyRun) []*corev1.Pod { return r.pending }, runs)
	t.Logf("%d unplaced pods settled %.1fs after the start", countPods(runs, true), time.Since(began).Seconds())

	nodes := w.nodesByName()
	for _, r := range runs {
		t.Run(r.ns, func(t *testing.T) {
			r.checkNodes(t, nodes)
			r.checkPlaced(t, placed)
			r.checkUnplaced(ctx, t, cs, unplaced)
		})
	}
	t.Logf("verified %d plans in %.1fs", len(cases), time.Since(began).Seconds())
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

// createSetup creates the priority classes, namespaces and nodes.
func createSetup(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, runs []*verifyRun) {
	t.Helper()
	never := corev1.PreemptNever
	for l := range priorityLevels {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: priorityClass(l),
			Labels: map[string]string{lblRun: runID}}, Value: int32(1000 + priorityLevels - l), PreemptionPolicy: &never}
		if _, err := cs.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating priority class %s: %v", pc.Name, err)
		}
	}
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

// checkNodes asserts each node still offers the extended resources the
// plan's configs advertise (KWOK keeps a node's status as created).
func (r *verifyRun) checkNodes(t *testing.T, nodes map[string]*corev1.Node) {
	for _, want := range r.nodes {
		got := nodes[want.Name]
		if got == nil {
			t.Errorf("node %s is gone", want.Name)
			continue
		}
		for res, q := range want.Status.Allocatable {
			if a := got.Status.Allocatable[res]; a.Cmp(q) != 0 {
				t.Errorf("node %s: allocatable %s is %s, the plan's configs advertise %s", want.Name, res, a.String(), q.String())
			}
		}
	}
}

// checkPlaced asserts every placed pod bound, and compares requests per
// resource: per node in the pinned variant, summed over the case's nodes
// in the free one.
func (r *verifyRun) checkPlaced(t *testing.T, pods map[string]*corev1.Pod) {
	got := map[string]map[corev1.ResourceName]int64{}
	onPlanNode := 0
	for _, want := range r.placed {
		p := pods[r.ns+"/"+want.Name]
		if p == nil || p.Spec.NodeName == "" {
			t.Errorf("%s (%s): the plan places it, the scheduler did not bind it: %s", want.Name, want.Annotations[annoID], schedMessage(p))
			continue
		}
		node := p.Spec.NodeName
		if got[node] == nil {
			got[node] = map[corev1.ResourceName]int64{}
		}
		for res, q := range p.Spec.Containers[0].Resources.Requests {
			got[node][res] += quantity(res, q)
		}
		got[node][corev1.ResourcePods]++
		if r.planned(want) == node {
			onPlanNode++
		}
	}
	want := r.want
	if r.v == freeVariant {
		got, want = map[string]map[corev1.ResourceName]int64{"all nodes": sum(got)}, map[string]map[corev1.ResourceName]int64{"all nodes": sum(want)}
		t.Logf("%s: %d of %d pods on the plan's node", r.c.what, onPlanNode, len(r.placed))
	}
	if diff := diffCounts(want, got); diff != "" {
		t.Errorf("%s: bound requests per node and resource differ from the plan:\n%s", r.c.what, diff)
	}
}

// planned is the node the plan puts a pod on.
func (r *verifyRun) planned(pod *corev1.Pod) string {
	for _, pc := range r.c.plan.Placements {
		if pc.Workload == pod.Annotations[annoID] {
			return r.names[pc.Node]
		}
	}
	return ""
}

func sum(m map[string]map[corev1.ResourceName]int64) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	for _, rs := range m {
		for r, n := range rs {
			out[r] += n
		}
	}
	return out
}

func diffCounts(want, got map[string]map[corev1.ResourceName]int64) string {
	var lines []string
	for node := range union(want, got) {
		for res := range union(want[node], got[node]) {
			if want[node][res] != got[node][res] {
				lines = append(lines, fmt.Sprintf("  %s %s: plan %d, bound %d", node, res, want[node][res], got[node][res]))
			}
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func union[K comparable, V any](a, b map[K]V) map[K]bool {
	out := map[K]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// checkUnplaced asserts every pod the plan could not place stays Pending
// and Unschedulable, with a FailedScheduling event naming the plan's
// reason.
func (r *verifyRun) checkUnplaced(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, pods map[string]*corev1.Pod) {
	var refused []string
	for _, want := range r.pending {
		p := pods[r.ns+"/"+want.Name]
		if p == nil || p.Spec.NodeName != "" || !isUnschedulable(p) {
			t.Errorf("%s: the plan says it fits nowhere (%s), the scheduler bound it to %s", want.Name, r.reasons[want.Name], nodeOf(p))
			continue
		}
		refused = append(refused, want.Name)
	}
	events := r.failedScheduling(ctx, t, cs, refused)
	for _, name := range refused {
		reason, ev := r.reasons[name], events[name]
		switch sub := schedulerWords(reason); {
		case ev == "":
			t.Errorf("%s: Unschedulable but no FailedScheduling event", name)
		case !containsAny(ev, sub):
			t.Errorf("%s: plan reason %q, scheduler says %q; want it to mention one of %q", name, reason, ev, sub)
		}
	}
}

func nodeOf(p *corev1.Pod) string {
	if p == nil {
		return "(pod missing)"
	}
	return p.Spec.NodeName
}

// schedulerWords are the words the scheduler's FailedScheduling message
// uses for the plan's reason.
func schedulerWords(planReason string) []string {
	switch {
	case strings.HasPrefix(planReason, "every eligible node has a taint"):
		return []string{"untolerated taint"}
	case strings.HasPrefix(planReason, "no eligible node matches the node selector"),
		strings.HasPrefix(planReason, "no node with GPU model"):
		return []string{"didn't match Pod's node affinity/selector"}
	case strings.HasPrefix(planReason, "requests") && strings.Contains(planReason, "CPU"):
		return []string{"Insufficient cpu"}
	case strings.HasPrefix(planReason, "requests") && strings.Contains(planReason, "memory"):
		return []string{"Insufficient memory"}
	case strings.HasPrefix(planReason, "needs"):
		return []string{"Insufficient nvidia.com/gpu"}
	case strings.HasPrefix(planReason, "no node's GPU offers MIG profile"):
		return []string{"Insufficient nvidia.com/mig-", "didn't match Pod's node affinity/selector"}
	}
	if strings.Contains(planReason, "(time-slice") {
		// No room among the nodes time-sliced for its class: the others
		// are exclusive or of another class (a label the pod selects).
		return []string{"Insufficient", "didn't match Pod's node affinity/selector"}
	}
	return []string{"Insufficient"} // no room; pinned to a full node
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// failedScheduling returns the FailedScheduling event message of each
// named pod; the scheduler records events asynchronously, so it waits up
// to 10 s for all of them.
func (r *verifyRun) failedScheduling(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, names []string) map[string]string {
	out := map[string]string{}
	sel := fields.Set{"reason": "FailedScheduling"}.AsSelector().String()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		evs, err := cs.CoreV1().Events(r.ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			t.Fatalf("listing events in %s: %v", r.ns, err)
		}
		for _, e := range evs.Items {
			out[e.InvolvedObject.Name] = e.Message
		}
		missing := slices.ContainsFunc(names, func(n string) bool { return out[n] == "" })
		if !missing || time.Now().After(deadline) {
			return out
		}
	}
}

func isUnschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

func schedMessage(p *corev1.Pod) string {
	if p == nil {
		return "(pod missing)"
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Reason + ": " + c.Message
		}
	}
	return "not tried yet"
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
