package policy

import "strings"

// Rule is one admission rule.
type Rule struct {
	// Name is the rule's key in the settings file and in object names.
	Name string
	// Audit is the audit rule it enforces (GW003), "" for the rules the
	// audit has no finding for.
	Audit   string
	Summary string
}

// The rules, in the order they are generated.
var (
	RuleNonGPUToleration = Rule{"non-gpu-pod-tolerates-gpu-taint", "GW002",
		"Pods that request no GPU must not tolerate the GPU taint (allowed agent DaemonSets excepted), so the taint keeps them off GPU nodes."}
	RuleLimits = Rule{"gpu-container-limits", "GW003",
		"GPU containers must set CPU and memory limits equal to their requests (Guaranteed QoS)."}
	RuleToleration = Rule{"gpu-pod-toleration", "GW004",
		"GPU pods must tolerate the GPU taint (the mutating policy adds it where served)."}
	RuleDevWholeGPU = Rule{"whole-gpu-in-dev-namespace", "GW006",
		"No whole GPUs in dev and notebook namespaces: a time-slice or MIG slice instead."}
	RuleLabels = Rule{"gpu-pod-cost-labels", "",
		"GPU pods must carry the cost-allocation labels."}
	RuleMaxGPUs = Rule{"max-gpus-per-pod", "",
		"A pod may request at most the namespace's cap of GPU units (whole, MIG or shared)."}
)

// Rules lists every rule in generation order.
var Rules = []Rule{RuleNonGPUToleration, RuleLimits, RuleToleration, RuleDevWholeGPU, RuleLabels, RuleMaxGPUs}

// RuleByName returns the rule named name.
func RuleByName(name string) (Rule, bool) {
	for _, r := range Rules {
		if r.Name == name {
			return r, true
		}
	}
	return Rule{}, false
}

// RuleNames lists the rules' names in order.
func RuleNames() []string {
	out := make([]string, len(Rules))
	for i, r := range Rules {
		out[i] = r.Name
	}
	return out
}

// ObjectName is the name of the rule's policy objects:
// "gpuwise-gw003-gpu-container-limits", "gpuwise-gpu-pod-cost-labels".
func (r Rule) ObjectName() string {
	if r.Audit == "" {
		return "gpuwise-" + r.Name
	}
	return "gpuwise-" + strings.ToLower(r.Audit) + "-" + r.Name
}

// label names what the message and logs call the rule: "GW003
// gpu-container-limits" or "gpu-pod-cost-labels".
func (r Rule) label() string {
	if r.Audit == "" {
		return r.Name
	}
	return r.Audit + " " + r.Name
}
