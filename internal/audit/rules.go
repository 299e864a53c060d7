package audit

// Rule describes one check.
type Rule struct {
	ID       string
	Name     string
	Severity Severity // default; a finding may raise or lower it
	Summary  string
}

// Rule IDs.
const (
	RuleNodeUntainted    = "GW001"
	RuleNonGPUPod        = "GW002"
	RuleLimits           = "GW003"
	RuleNoToleration     = "GW004"
	RuleNoModelAffinity  = "GW005"
	RuleDevWholeGPU      = "GW006"
	RuleMIGSingleInvalid = "GW007"
	RuleMIGConfigFailed  = "GW008"
	RuleReplicasBelow2   = "GW009"
	RuleRoundRequests    = "GW010"
)

// Rules lists every rule in ID order.
var Rules = []Rule{
	{RuleNodeUntainted, "gpu-node-without-taint", Warning,
		"GPU node without a NoSchedule GPU taint: any pod can land on it and hold its CPU and memory."},
	{RuleNonGPUPod, "non-gpu-pod-on-gpu-node", Warning,
		"Pod that requests no GPU runs on a GPU node (node agents on the allow-list excepted)."},
	{RuleLimits, "gpu-container-limits", Warning,
		"GPU container without CPU/memory limits, or with a memory request different from its limit."},
	{RuleNoToleration, "gpu-pod-without-toleration", Warning,
		"GPU pod without the GPU toleration while the GPU pool is tainted."},
	{RuleNoModelAffinity, "gpu-pod-without-model-affinity", Warning,
		"GPU pod in a mixed-model cluster without a node selector or affinity on the GPU model."},
	{RuleDevWholeGPU, "whole-gpu-in-dev-namespace", Warning,
		"Whole GPUs requested in a dev or notebook namespace, where a shared slice usually suffices."},
	{RuleMIGSingleInvalid, "mig-single-mixed-layout", Critical,
		"MIG single strategy on a node whose layout is mixed or invalid: the device plugin cannot advertise it."},
	{RuleMIGConfigFailed, "mig-config-failed", Critical,
		"MIG manager reports nvidia.com/mig.config.state=failed: the node's GPUs are not serving the wanted layout."},
	{RuleReplicasBelow2, "time-slicing-replicas-below-2", Warning,
		"Time-slicing configured with fewer than 2 replicas: sharing is on but nothing is shared."},
	{RuleRoundRequests, "round-number-requests", Info,
		"GPU pod with round-number CPU/memory requests, a sign they were guessed rather than measured."},
}

// RuleByID returns the rule with id.
func RuleByID(id string) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}
