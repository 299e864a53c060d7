//go:build integration

package kube

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
)

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
