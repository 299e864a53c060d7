package audit

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// hit is one pod's violation of a rule; hits of the same workload are
// merged into one finding.
type hit struct {
	pod      *cluster.Pod
	severity Severity
	message  string
	evidence []string
	usd      *float64
	fix      string
}

// group merges hits per workload (namespace + top-level owner): the
// worst severity, the first pod's message and evidence, the summed
// impact.
func group(rule string, hits []hit) []Finding {
	var order []string
	byKey := map[string][]hit{}
	for _, h := range hits {
		k := h.pod.WorkloadKey()
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], h)
	}
	var fs []Finding
	for _, k := range order {
		hs := byKey[k]
		f := Finding{Rule: rule, Object: workloadObject(hs[0].pod), Message: hs[0].message,
			Evidence: append([]string{}, hs[0].evidence...), Remediation: hs[0].fix}
		for _, h := range hs {
			f.Severity = max(f.Severity, h.severity)
			if h.usd != nil {
				f.MonthlyUSD = usd(valueOr(f.MonthlyUSD) + *h.usd)
			}
		}
		if len(hs) > 1 {
			f.Evidence = append(f.Evidence, fmt.Sprintf("%d pods of this workload are affected (first: %s)", len(hs), hs[0].pod.Name))
		} else {
			f.Evidence = append(f.Evidence, "pod "+hs[0].pod.Key())
		}
		fs = append(fs, f)
	}
	return fs
}

func valueOr(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// workloadObject is "Deployment ml/train" or "Pod ml/x".
func workloadObject(p *cluster.Pod) string {
	kind, name := p.Owner.Kind, p.Owner.Name
	if name == "" {
		kind, name = "Pod", p.Name
	}
	return kind + " " + p.Namespace + "/" + name
}

// patchCommand returns the kubectl command that merges podSpec into the
// workload's pod template, or for a bare pod or Job the instruction to
// change its manifest instead (pod specs and a Job's spec.template are
// immutable once created: the apiserver refuses the patch).
func patchCommand(p *cluster.Pod, podSpec map[string]any) string {
	var wrapped map[string]any
	kind := strings.ToLower(p.Owner.Kind)
	switch kind {
	case "job":
		b, _ := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{"spec": podSpec}}})
		return fmt.Sprintf("# Job %s/%s: its pod template is immutable once the Job exists (kubectl patch is refused); merge this into its manifest for the next run:\n%s",
			p.Namespace, p.Owner.Name, b)
	case "deployment", "statefulset", "daemonset", "replicaset":
		wrapped = map[string]any{"spec": map[string]any{"template": map[string]any{"spec": podSpec}}}
	case "cronjob":
		wrapped = map[string]any{"spec": map[string]any{"jobTemplate": map[string]any{"spec": map[string]any{
			"template": map[string]any{"spec": podSpec}}}}}
	default:
		b, _ := json.Marshal(map[string]any{"spec": podSpec})
		return fmt.Sprintf("# bare pod %s: recreate it with this merged into its manifest:\n%s", p.Key(), b)
	}
	b, _ := json.Marshal(wrapped)
	return fmt.Sprintf("kubectl -n %s patch %s %s --type strategic -p '%s'", p.Namespace, kind, p.Owner.Name, b)
}
