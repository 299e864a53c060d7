package tracker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// The groundwork kinds besides the taint (the ledger's foundations F2–F4):
// the admission policies in warn mode, the VPAs in updateMode Off and
// the DCGM exporter on every GPU node.
const (
	KindAdmission = "admission-warn"
	KindVPAOff    = "vpa-off"
	KindDCGM      = "dcgm"
)

// managedBy is the label every object gpuwise generates carries
// (internal/policy, internal/generate): app.kubernetes.io/managed-by.
const (
	labelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "gpuwise"
)

// vpaKinds are the owner kinds a VPA can target, as the ledger counts
// them for its VPA groundwork.
var vpaKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true, "Job": true, "CronJob": true}

// groundworkWhy is what each groundwork kind is for, in its realised note.
var groundworkWhy = map[string]string{
	KindTaint:     "it keeps pods that need no GPU off the GPU nodes",
	KindAdmission: "it keeps new workloads to the GPU hygiene the right-sized requests and shapes rely on",
	KindVPAOff:    "the VPA recommender's numbers are a second opinion on the right-sized requests",
	KindDCGM:      "it measures the GPUs the levers could not size",
}

// groundworkKey is the tracked key of a foundation kind.
func groundworkKey(kind string) string { return Groundwork + ":" + kind }

// groundworkTargets are what a foundation acts on, as the snapshot that
// first proposed it shows them; false for a kind the plan does not track.
func groundworkTargets(f *ledger.Foundation, l *ledger.Ledger, v *view) ([]Target, bool) {
	switch f.Kind {
	case KindTaint:
		return untainted(v), true
	case KindAdmission:
		return admissionTargets(v), true
	case KindVPAOff:
		return vpaTargets(l), true
	case KindDCGM:
		return unmeasuredNodes(v), true
	}
	return nil, false
}

// groundworkTarget is the action's target line on the checklist.
func groundworkTarget(kind string, ts []Target) string {
	switch kind {
	case KindTaint, KindDCGM:
		return fmt.Sprintf("%d GPU node(s)", len(ts))
	case KindVPAOff:
		return fmt.Sprintf("%d workload(s)", len(ts))
	}
	return fmt.Sprintf("%d gpuwise admission policy(ies)", countKind(ts, "policy"))
}

func countKind(ts []Target, kind string) int {
	n := 0
	for _, t := range ts {
		if t.Kind == kind {
			n++
		}
	}
	return n
}

// vpaTargets are the right-sized workloads a VPA can target: those the
// ledger's VPA groundwork counts (`gpuwise generate vpa` writes them).
func vpaTargets(l *ledger.Ledger) []Target {
	var out []Target
	seen := map[string]bool{}
	for i := range l.Actions {
		la := &l.Actions[i]
		if la.Kind != lever.KindResize {
			continue
		}
		for _, it := range la.Items {
			parts := strings.SplitN(it.Target, "/", 3)
			if len(parts) != 3 || !vpaKinds[parts[1]] || seen[it.Target] {
				continue
			}
			seen[it.Target] = true
			out = append(out, Target{Kind: "workload", Name: it.Target, Expect: "a VerticalPodAutoscaler (updateMode Off) targets it"})
		}
	}
	slices.SortFunc(out, func(a, b Target) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// unmeasuredNodes are the GPU nodes alive at the window's end where a pod
// holds a GPU unit with no activity series: DCGM does not report them.
func unmeasuredNodes(v *view) []Target {
	var out []Target
	for _, name := range sortedKeys(v.nodes) {
		if !v.alive[name] {
			continue
		}
		if held, measured := v.measured(name); held > 0 && measured < held {
			out = append(out, Target{Kind: "node", Name: name, Model: nodeModel(v.nodes[name]), Expect: "DCGM reports every GPU unit its pods hold"})
		}
	}
	return out
}

// measured counts the GPU units pods running at the window's end hold on
// the node, and those with an activity series.
func (v *view) measured(node string) (held, measured int) {
	for _, p := range v.onNode[node] {
		for _, h := range p.GPUs {
			held++
			if h.Activity != nil {
				measured++
			}
		}
	}
	return held, measured
}

// admissionTargets are the gpuwise admission policies the cluster holds
// (ValidatingAdmissionPolicies and Kyverno policies labelled
// app.kubernetes.io/managed-by: gpuwise), or, when it holds none, one
// placeholder that shows the policies missing.
func admissionTargets(v *view) []Target {
	var out []Target
	if v.controls != nil {
		for _, p := range v.controls.Policies {
			if p.Labels[labelManagedBy] == managedBy {
				out = append(out, Target{Kind: "policy", Name: p.Kind + "/" + p.Name, Expect: admissionExpect(p.Kind)})
			}
		}
	}
	slices.SortFunc(out, func(a, b Target) int { return strings.Compare(a.Name, b.Name) })
	if len(out) == 0 {
		out = append(out, Target{Kind: "policies", Name: "gpuwise admission policies", Expect: "gpuwise generate policy's objects applied and bound"})
	}
	return out
}

func admissionExpect(kind string) string {
	if kind == cluster.KindVAP {
		return "a ValidatingAdmissionPolicyBinding binds it"
	}
	return "the Kyverno policy is in force (it needs no binding)"
}

// refreshAdmission takes in the gpuwise policies installed since the
// action was proposed (the policies are created by applying it), keeping
// when each known one was first seen bound.
func refreshAdmission(a *Action, v *view) {
	if v.controls == nil || !v.controls.Reads(cluster.ResourceVAP) {
		return
	}
	had := map[string]Target{}
	for _, t := range a.Targets {
		had[t.Kind+"\x00"+t.Name] = t
	}
	now := admissionTargets(v)
	for i, t := range now {
		if old, ok := had[t.Kind+"\x00"+t.Name]; ok {
			now[i] = old
		}
	}
	a.Targets = now
	a.Target = groundworkTarget(KindAdmission, now)
}

// checkAdmission: a ValidatingAdmissionPolicy is applied when a binding
// names it; a Kyverno policy when it is there (it is in force by itself);
// the placeholder never.
func (v *view) checkAdmission(t *Target) (applied bool, seen string, known bool) {
	c := v.controls
	if c == nil || !c.Reads(cluster.ResourceVAP) || !c.Reads(cluster.ResourceVAPBinding) {
		return false, "the snapshot holds no admission policies (gpuwise collect from the Kubernetes API reads them)", false
	}
	if t.Kind != "policy" {
		return false, "no gpuwise admission policy installed", true
	}
	kind, name, _ := strings.Cut(t.Name, "/")
	if !slices.ContainsFunc(c.Policies, func(p cluster.AdmissionPolicy) bool { return p.Kind == kind && p.Name == name }) {
		return false, "policy gone", true
	}
	if kind != cluster.KindVAP {
		return true, "in force", true
	}
	var by []string
	for _, b := range c.Bindings {
		if b.Policy == name {
			by = append(by, fmt.Sprintf("%s (%s)", b.Name, strings.Join(b.Actions, ", ")))
		}
	}
	if len(by) == 0 {
		return false, "installed, no binding: inert", true
	}
	return true, "bound by " + strings.Join(by, "; "), true
}

// checkVPA: a VerticalPodAutoscaler targets the workload.
func (v *view) checkVPA(t *Target) (applied bool, seen string, known bool) {
	if !v.controls.Knows(cluster.ResourceVPA) {
		return false, "the snapshot holds no VPAs (listing them was forbidden, or the snapshot was not collected from the Kubernetes API)", false
	}
	if !v.controls.Reads(cluster.ResourceVPA) {
		return false, "the API serves no VerticalPodAutoscaler (the VPA CRD is not installed)", true
	}
	for _, a := range v.controls.Autoscalers {
		if a.Kind == cluster.KindVPA && a.Workload() == t.Name {
			mode := a.Mode
			if mode == "" {
				mode = "unset: the VPA's default, not Off"
			}
			return true, fmt.Sprintf("VPA %s/%s (updateMode %s)", a.Namespace, a.Name, mode), true
		}
	}
	return false, "no VPA targets it", true
}

// checkDCGM: every GPU unit the node's running pods hold has an activity
// series.
func (v *view) checkDCGM(t *Target) (applied bool, seen string, known bool) {
	if !v.alive[t.Name] {
		return false, "node gone", false
	}
	held, measured := v.measured(t.Name)
	if held == 0 {
		return false, "no pod holds a GPU there now: nothing to measure", false
	}
	return measured == held, fmt.Sprintf("%d of %d held GPU unit(s) measured", measured, held), true
}

// scalerOf is the HPA or (not paused) ScaledObject that targets the
// workload, nil when none does.
func (v *view) scalerOf(workload string) *cluster.Autoscaler {
	if v.controls == nil {
		return nil
	}
	for i := range v.controls.Autoscalers {
		a := &v.controls.Autoscalers[i]
		if (a.Kind == cluster.KindHPA || (a.Kind == cluster.KindScaledObject && a.Mode != "paused")) && a.Workload() == workload {
			return a
		}
	}
	return nil
}

// readsScalers: the snapshot knows every HPA and ScaledObject (listed, or
// KEDA not installed), so a workload with neither has no autoscaler
// object.
func (v *view) readsScalers() bool {
	return v.controls.Knows(cluster.ResourceHPA) && v.controls.Knows(cluster.ResourceScaledObject)
}

// nodePoolOf is a Karpenter NodePool for the pool's nodes: one whose nodes
// (karpenter.sh/nodepool) are of the pool's GPU models, or whose
// instance-type requirement names one of its nodes' instance types.
func (v *view) nodePoolOf(a *Action, models map[string]bool) *cluster.NodePool {
	if v.controls == nil {
		return nil
	}
	instances := map[string]bool{}
	for _, t := range a.Targets {
		if t.Instance != "" {
			instances[t.Instance] = true
		}
	}
	launched := map[string]bool{}
	for name, n := range v.nodes {
		if pool := n.Labels[cluster.NodePoolLabel]; pool != "" && v.alive[name] && models[nodeModel(n)] {
			launched[pool] = true
		}
	}
	for i := range v.controls.NodePools {
		np := &v.controls.NodePools[i]
		if launched[np.Name] || slices.ContainsFunc(np.InstanceTypes, func(it string) bool { return instances[it] }) {
			return np
		}
	}
	return nil
}
