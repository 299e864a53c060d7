//go:build integration

package kube

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// Labels the verification adds: which run and case an object belongs to
// (isolation between cases that share the control plane), and each node's
// GPU model, which stands in for the model restriction the plan assumes
// for GPU pods (a pod stays on its GPU model).
const (
	lblRun   = "verify.gpuwise.test/run"
	lblCase  = "verify.gpuwise.test/case"
	lblModel = "verify.gpuwise.test/gpu-model"
	// lblClass is a time-sliced node's named class: the plan keeps named
	// classes apart per node (dev never shares with inference), which the
	// scheduler enforces only through a label and a selector; unclassified
	// time-slice pods go anywhere.
	lblClass = "verify.gpuwise.test/time-slice-class"
	annoID   = "verify.gpuwise.test/workload"
	hostname = "kubernetes.io/hostname"
	// binpack is the bin-packing scheduler profile of up.sh.
	binpack = "gpuwise-binpack"
)

// variant says how pods reach their nodes.
type variant string

const (
	// pinnedVariant adds a kubernetes.io/hostname selector for the plan's
	// node to every pod: each kept node must admit exactly what the plan
	// puts on it (resources, taints, selectors).
	pinnedVariant variant = "pin"
	// freeVariant lets the scheduler choose among the kept nodes: the
	// whole set must fit them under the scheduler's own choices.
	freeVariant variant = "free"
)

// verifyRun is the objects of one case in one variant.
type verifyRun struct {
	c       planCase
	v       variant
	ns      string            // namespace, and the case label's value
	names   map[string]string // plan node → Kubernetes node name
	nodes   []*corev1.Node
	placed  []*corev1.Pod // the plan's placements
	pending []*corev1.Pod // the plan's unplaced workloads
	// want is the plan's per-node request of every resource (pinned);
	// for the free variant only the sums across nodes are compared.
	want map[string]map[corev1.ResourceName]int64
	// reasons are the plan's reasons per unplaced pod name.
	reasons map[string]string
	// attempt counts the free variant's arrival orders; first are the
	// workloads that arrive before all others (refused in the last one).
	attempt int
	first   map[string]bool
}

func newRun(c planCase, v variant) *verifyRun {
	return newAttempt(c, v, 1, nil)
}

// again is the free variant once more, the pods refused in this and every
// earlier order arriving first, on fresh nodes in a fresh namespace.
func (r *verifyRun) again(refused []string) *verifyRun {
	first := map[string]bool{}
	for id := range r.first { // refused in an earlier order: still first
		first[id] = true
	}
	for _, id := range refused {
		first[id] = true
	}
	return newAttempt(r.c, r.v, r.attempt+1, first)
}

func newAttempt(c planCase, v variant, attempt int, first map[string]bool) *verifyRun {
	ns := c.id + "-" + string(v)
	if attempt > 1 {
		ns += strconv.Itoa(attempt)
	}
	r := &verifyRun{c: c, v: v, ns: ns, names: map[string]string{}, attempt: attempt, first: first,
		want: map[string]map[corev1.ResourceName]int64{}, reasons: map[string]string{}}
	p := c.plan.Problem()
	nodes := map[string]*packing.Node{}
	for i := range p.Nodes {
		nodes[p.Nodes[i].Name] = &p.Nodes[i]
	}
	for i := range c.plan.Nodes {
		if np := &c.plan.Nodes[i]; np.Keep {
			r.names[np.Name] = r.ns + "-" + np.Name
		}
	}
	for i := range c.plan.Nodes {
		if np := &c.plan.Nodes[i]; np.Keep {
			r.nodes = append(r.nodes, r.node(np, nodes[np.Name]))
		}
	}
	works := map[string]*packing.Workload{}
	for i := range p.Workloads {
		works[p.Workloads[i].ID] = &p.Workloads[i]
	}
	for i := range c.plan.Placements {
		pc := &c.plan.Placements[i]
		w := works[pc.Workload]
		pinned := v == pinnedVariant || pc.KeptShape || w.Pinned
		pod := r.pod(w, pc.Demand, r.modelsFor(w, pc, nodes), pinnedTo(pinned, pc.Node))
		r.placed = append(r.placed, pod)
		r.add(r.names[pc.Node], pod)
	}
	for _, u := range c.plan.Unplaced {
		if v == freeVariant && dependsOnPlacement(u.Reason) {
			continue
		}
		w := works[u.Workload]
		node := ""
		if w.Pinned {
			node = w.Node
		}
		pod := r.pod(w, u.Demand, w.Models, node)
		r.pending = append(r.pending, pod)
		r.reasons[pod.Name] = u.Reason
	}
	if v == freeVariant {
		r.order()
	}
	return r
}

// dependsOnPlacement reports an unplaced reason that holds only for the
// plan's placement of the other pods ("no room", or its pinned node is
// full): the free variant, where the scheduler places them, cannot check
// it.
func dependsOnPlacement(reason string) bool {
	return strings.HasPrefix(reason, "no room") || strings.HasPrefix(reason, "pinned to node")
}

func pinnedTo(pinned bool, node string) string {
	if pinned {
		return node
	}
	return ""
}

// modelsFor is the GPU model set the plan allowed for the placement: the
// workload's models, or, where it keeps its current shape, its current
// node's model.
func (r *verifyRun) modelsFor(w *packing.Workload, pc *packing.Placement, nodes map[string]*packing.Node) []string {
	if pc.Demand.Kind == packing.NoGPU {
		return nil
	}
	if pc.KeptShape || pc.CurrentShape || w.Pinned {
		if n := nodes[w.Node]; n != nil {
			return []string{n.Model}
		}
	}
	return w.Models
}

// node is the KWOK node of a kept plan node: the problem's labels (the
// hostname renamed), taints, CPU and memory for planned pods, and the
// extended resources the device plugin advertises under the plan's
// mig-parted layouts and time-slicing config.
func (r *verifyRun) node(np *packing.NodePlan, n *packing.Node) *corev1.Node {
	name := r.names[np.Name]
	labels := map[string]string{}
	for k, v := range n.Labels {
		labels[k] = v
	}
	labels[hostname], labels[lblRun], labels[lblCase] = name, runID, r.ns
	if n.Model != "" {
		labels[lblModel] = labelValue(n.Model)
	}
	for _, pc := range r.c.plan.Placements {
		if pc.Node == np.Name && pc.Demand.Kind == packing.TimeSlice && pc.Demand.Class != "" {
			labels[lblClass] = labelValue(pc.Demand.Class)
		}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels,
		Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}}}
	// The case's taint keeps other tests' pending pods off (every pod of
	// the case tolerates it); then the plan's taints.
	node.Spec.Taints = []corev1.Taint{{Key: lblCase, Value: r.ns, Effect: corev1.TaintEffectNoSchedule}}
	for _, t := range n.Taints {
		node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	pods := int64(packing.DefaultMaxPods)
	if n.MaxPods != nil {
		pods = int64(*n.MaxPods)
	}
	l := corev1.ResourceList{
		corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
		corev1.ResourceCPU:    *resource.NewMilliQuantity(n.CPUMilli, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(n.MemoryBytes, resource.BinarySI),
	}
	adv, _ := np.Advertised()
	if unplanned(n) {
		adv = r.pinnedShapes(np.Name)
	}
	for res, count := range adv {
		l[corev1.ResourceName(res)] = *resource.NewQuantity(count, resource.DecimalSI)
	}
	node.Status.Capacity, node.Status.Allocatable = l, l
	return node
}

// unplanned: the node's GPUs are allocated through DRA ResourceClaims or
// HAMi, which the planner keeps as they are (packing.UnplannedTaintKey).
func unplanned(n *packing.Node) bool {
	for _, t := range n.Taints {
		if t.Key == packing.UnplannedTaintKey {
			return true
		}
	}
	return false
}

// pinnedShapes stands in for a DRA or HAMi node's allocation: no device
// plugin advertises its GPUs (the real scheduler allocating DRA claims is
// TestDRAClaimsBilledToTheirPods' and TestDRAModelSelectorAllocatedByTheScheduler's),
// so the node advertises exactly the extended resources of the shapes the
// plan pinned its pods to, and this test checks the CPU, memory, pod
// count and taints the plan assumed there.
func (r *verifyRun) pinnedShapes(node string) map[string]int64 {
	out := map[string]int64{}
	for _, pc := range r.c.plan.Placements {
		if pc.Node != node {
			continue
		}
		if res, n := pc.Demand.Resource(); res != "" {
			out[res] += n
		}
	}
	return out
}

// pod is a pod without nodeName that asks for what the plan assumed: the
// shape's extended resource (request = limit), CPU and memory, the
// workload's tolerations and selector, its GPU models, and, when node is
// set, a hostname selector for that plan node.
func (r *verifyRun) pod(w *packing.Workload, d packing.Demand, models []string, node string) *corev1.Pod {
	no, zero := false, int64(0)
	req := corev1.ResourceList{}
	if w.CPUMilli > 0 {
		req[corev1.ResourceCPU] = *resource.NewMilliQuantity(w.CPUMilli, resource.DecimalSI)
	}
	if w.MemoryBytes > 0 {
		req[corev1.ResourceMemory] = *resource.NewQuantity(w.MemoryBytes, resource.BinarySI)
	}
	lim := corev1.ResourceList{}
	if res, n := d.Resource(); res != "" {
		q := *resource.NewQuantity(n, resource.DecimalSI)
		req[corev1.ResourceName(res)], lim[corev1.ResourceName(res)] = q, q
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: podName(w.ID),
			Labels: map[string]string{lblRun: runID}, Annotations: map[string]string{annoID: w.ID}},
		Spec: corev1.PodSpec{AutomountServiceAccountToken: &no, TerminationGracePeriodSeconds: &zero,
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/app:1",
				Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}},
			Tolerations: append(tolerations(w.Tolerations), corev1.Toleration{Key: lblCase, Operator: corev1.TolerationOpEqual,
				Value: r.ns, Effect: corev1.TaintEffectNoSchedule}),
			Affinity: r.affinity(w.NodeSelector, models, d, node)},
	}
	if r.v == freeVariant {
		pod.Spec.SchedulerName = binpack
	}
	return pod
}

func tolerations(in []cluster.Toleration) []corev1.Toleration {
	var out []corev1.Toleration
	for _, t := range in {
		out = append(out, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect)})
	}
	return out
}

// affinity is one required node-selector term: the workload's selector
// (values In, or Exists for a term without values), its GPU models, its
// time-slice class, the case's nodes and, pinned, the plan's node.
func (r *verifyRun) affinity(sel map[string][]string, models []string, d packing.Demand, node string) *corev1.Affinity {
	term := corev1.NodeSelectorTerm{}
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vals := sel[k]
		if k == hostname {
			vals = r.renamed(vals)
		}
		e := corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: vals}
		if len(vals) == 0 {
			e.Operator = corev1.NodeSelectorOpExists
		}
		term.MatchExpressions = append(term.MatchExpressions, e)
	}
	if len(models) > 0 {
		vals := make([]string, len(models))
		for i, m := range models {
			vals[i] = labelValue(m)
		}
		term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: lblModel, Operator: corev1.NodeSelectorOpIn, Values: vals})
	}
	if d.Kind == packing.TimeSlice && d.Class != "" {
		term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: lblClass, Operator: corev1.NodeSelectorOpIn, Values: []string{labelValue(d.Class)}})
	}
	term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: lblCase, Operator: corev1.NodeSelectorOpIn, Values: []string{r.ns}})
	if node != "" {
		term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: hostname, Operator: corev1.NodeSelectorOpIn, Values: r.renamed([]string{node})})
	}
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}}}
}

// renamed maps plan node names to this run's node names; a name the plan
// does not keep maps to a name no node has.
func (r *verifyRun) renamed(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if n, ok := r.names[v]; ok {
			out[i] = n
		} else {
			out[i] = r.ns + "-removed-" + v
		}
	}
	return out
}

// add counts a placed pod's requests on its plan node.
func (r *verifyRun) add(node string, pod *corev1.Pod) {
	if r.want[node] == nil {
		r.want[node] = map[corev1.ResourceName]int64{}
	}
	for res, q := range pod.Spec.Containers[0].Resources.Requests {
		r.want[node][res] += quantity(res, q)
	}
	r.want[node][corev1.ResourcePods]++
}

// quantity is milli-CPU for CPU and the integer value otherwise.
func quantity(res corev1.ResourceName, q resource.Quantity) int64 {
	if res == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

var invalidName = regexp.MustCompile(`[^a-z0-9.-]+`)

// podName turns a workload id ("ns/name") into a pod name.
func podName(id string) string {
	s := strings.Trim(invalidName.ReplaceAllString(strings.ToLower(id), "-"), "-.")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

var invalidLabel = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func labelValue(s string) string {
	return strings.Trim(invalidLabel.ReplaceAllString(s, "-"), "-._")
}
