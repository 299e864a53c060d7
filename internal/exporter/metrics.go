package exporter

import "github.com/prometheus/client_golang/prometheus"

// Metric describes one metric family: the one table the collector, its
// descriptors and docs/metrics.md are made from.
type Metric struct {
	Name   string
	Type   string // "counter" or "gauge"
	Help   string
	Labels []string
	// Cardinality says how many series the family has.
	Cardinality string
}

const (
	counter = "counter"
	gauge   = "gauge"
)

var wl = []string{"namespace", "workload"}

// Families of the domain metrics, in the order docs/metrics.md lists them.
var (
	GPUAllocatedHours = Metric{"gpuwise_workload_gpu_allocated_seconds_total", counter,
		"GPU-seconds held by the workload's pods (each unit weighted by its fraction of a physical GPU), added up over the cycles this process recorded.",
		wl, "one per exported workload (see gpuwise_workload_*)"}
	GPUActiveHours = Metric{"gpuwise_workload_gpu_active_seconds_total", counter,
		"Held GPU-seconds weighted by measured GPU activity, added up over the cycles this process recorded.", wl, "as above"}
	GPUIdleHours = Metric{"gpuwise_workload_gpu_idle_seconds_total", counter,
		"Held and measured GPU-seconds below the idle threshold, added up over the cycles this process recorded.", wl, "as above"}
	GPUUnmeasuredHours = Metric{"gpuwise_workload_gpu_unmeasured_seconds_total", counter,
		"Held GPU-seconds with no usage series (never counted as idle or busy), added up over the cycles this process recorded.", wl, "as above"}
	Cost = Metric{"gpuwise_workload_cost_usd_total", counter,
		"Dollars the cost engine charged the workload on priced nodes, by component (gpu_active, gpu_idle, gpu_unmeasured, cpu, memory; they sum to the workload's cost), added up over the cycles this process recorded.",
		[]string{"namespace", "workload", "component"}, "5 per exported workload"}
	UnpricedHours = Metric{"gpuwise_workload_unpriced_gpu_seconds_total", counter,
		"Held GPU-seconds on nodes without a price, whose dollars are missing (never $0), added up over the cycles this process recorded.", wl, "one per exported workload"}
	OOMKills = Metric{"gpuwise_workload_oom_kills_total", counter,
		"Out-of-memory kills of the workload's containers, added up over the cycles this process recorded.", wl, "one per exported workload"}
	UnallocatedHours = Metric{"gpuwise_unallocated_gpu_seconds_total", counter,
		"Provisioned GPU-seconds no pod held, by GPU model, added up over the cycles this process recorded.", []string{"gpu_model"}, "one per GPU model"}
	UnallocatedCost = Metric{"gpuwise_unallocated_cost_usd_total", counter,
		"Dollars of capacity no pod held on priced nodes, by GPU model and component (gpu, cpu_memory), added up over the cycles this process recorded.",
		[]string{"gpu_model", "component"}, "2 per GPU model"}

	WindowSeconds = Metric{"gpuwise_window_seconds", gauge,
		"Length of the rolling window the gpuwise_window_* gauges and /api/v1/report cover.", nil, "1"}
	WindowEnd = Metric{"gpuwise_window_end_timestamp_seconds", gauge,
		"End of the rolling window (Unix seconds).", nil, "1"}
	Partial = Metric{"gpuwise_window_partial", gauge,
		"1 when some data of the window could not be read (the API marks its answers partial), else 0.", nil, "1"}
	GPUs = Metric{"gpuwise_window_gpus_provisioned", gauge,
		"Mean physical GPUs provisioned over the window (provisioned GPU-hours / window hours), by GPU model.", []string{"gpu_model"}, "one per GPU model"}
	MechanismAllocated = Metric{"gpuwise_window_mechanism_gpu_allocated_seconds", gauge,
		"GPU-seconds held in the window by allocation mechanism (device-plugin, mig, time-slicing, dra, hami; joined with + for a pod or node using several), the report by mechanism.",
		[]string{"mechanism"}, "one per mechanism in use"}
	MechanismCost = Metric{"gpuwise_window_mechanism_cost_usd", gauge,
		"The window's cost by allocation mechanism, the report by mechanism's total_cost_usd (mechanism none: pods holding no GPU on GPU nodes); they add up to gpuwise_window_cost_usd.",
		[]string{"mechanism"}, "one per mechanism in use"}
	NamespaceUtilization = Metric{"gpuwise_window_namespace_gpu_utilization_ratio", gauge,
		"Active over measured allocated GPU-hours of the namespace in the window; absent when none was measured.",
		[]string{"namespace"}, "one per namespace holding GPUs"}
	NamespaceCost = Metric{"gpuwise_window_namespace_cost_usd", gauge,
		"The namespace's cost in the window, the report's total_cost_usd; absent for namespaces only on unpriced nodes.",
		[]string{"namespace"}, "one per namespace"}
	NamespaceIdleCost = Metric{"gpuwise_window_namespace_gpu_idle_cost_usd", gauge,
		"The namespace's allocated-but-idle GPU dollars in the window.", []string{"namespace"}, "one per namespace"}
	Utilization = Metric{"gpuwise_window_gpu_utilization_of_provisioned_ratio", gauge,
		"Active GPU-hours over provisioned GPU-hours whose state is known, in the window; absent when nothing was measured.", nil, "1"}
	Coverage = Metric{"gpuwise_window_coverage_ratio", gauge,
		"Share of the window's data that is known: measured (allocated GPU-hours with usage series) and priced (provisioned GPU-hours on priced nodes).",
		[]string{"kind"}, "2"}
	WindowCost = Metric{"gpuwise_window_cost_usd", gauge,
		"The window's cost, the report's totals.total_cost_usd: every namespace's plus capacity no pod held (what Spend in the window shows on the dashboard and in Grafana); absent when no node is priced.",
		nil, "1"}
	IdleCost = Metric{"gpuwise_window_unused_gpu_cost_usd", gauge,
		"Allocated-but-idle plus unallocated GPU dollars in the window (the report's unused GPU cost).", nil, "1"}
	Findings = Metric{"gpuwise_window_audit_findings", gauge,
		"Audit findings on the window's snapshot, by rule and severity.", []string{"rule", "severity"}, "one per rule and severity found"}
	FindingsUSD = Metric{"gpuwise_window_audit_at_stake_usd_per_month", gauge,
		"Priced monthly dollars at stake in the audit's findings, by rule.", []string{"rule"}, "one per rule found"}
	FleetGPUs = Metric{"gpuwise_window_end_gpus", gauge,
		"Physical GPUs of the nodes alive at the window's end, by GPU model and sharing (exclusive, mig, time-slicing): a change in the mig or time-slicing count is a sharing change.",
		[]string{"gpu_model", "sharing"}, "one per GPU model and sharing in use"}
	SpotNodesEnded = Metric{"gpuwise_window_spot_gpu_nodes_ended", gauge,
		"Spot GPU nodes whose life ended inside the window (reclaimed, or scaled down: the inventory cannot tell which), by GPU model.",
		[]string{"gpu_model"}, "one per GPU model with spot nodes that ended"}
	Savings = Metric{"gpuwise_window_savings_usd_per_month", gauge,
		"Monthly dollars the savings ledger (gpuwise advise: every lever, default policy) saves on the window's usage: modelled run-rate before minus after.", nil, "1"}
	LeverSavings = Metric{"gpuwise_window_lever_savings_usd_per_month", gauge,
		"The savings ledger's monthly dollars by lever (docs/savings.md: rightsize, shape, consolidate, autoscale, reclaim, queue, spot, commit; region when given a data size; quantize counts nothing, its candidates are upper bounds); they add up to gpuwise_window_savings_usd_per_month.",
		[]string{"lever"}, "one per lever that ran (9, 10 with region)"}

	KueueQuota = Metric{"gpuwise_window_kueue_quota_gpus", gauge,
		"A Kueue ClusterQueue's nominal GPU quota (GPU units of every flavor; a MIG instance is one unit, as Kueue counts it) when the window's snapshot was read.",
		[]string{"cluster_queue"}, "one per ClusterQueue"}
	KueueUsed = Metric{"gpuwise_window_kueue_used_gpus", gauge,
		"GPU units the ClusterQueue's status says its admitted workloads use, borrowed ones included, when the window's snapshot was read.", []string{"cluster_queue"}, "one per ClusterQueue"}
	KueueBorrowed = Metric{"gpuwise_window_kueue_borrowed_gpus", gauge,
		"GPU units the ClusterQueue borrows from its cohort, when the window's snapshot was read.", []string{"cluster_queue"}, "one per ClusterQueue"}
	KueueAdmitted = Metric{"gpuwise_window_kueue_admitted_gpu_seconds", gauge,
		"GPU units × seconds the ClusterQueue's workloads were admitted inside the window (quota reserved, whether or not a pod ran; docs/kueue.md).", []string{"cluster_queue"}, "one per ClusterQueue"}
	KueueHeld = Metric{"gpuwise_window_kueue_held_gpu_seconds", gauge,
		"GPU-seconds the admitted workloads' pods held in the window (the cost engine's, each unit weighted by its fraction of a physical GPU).", []string{"cluster_queue"}, "one per ClusterQueue"}
	KueueActive = Metric{"gpuwise_window_kueue_active_gpu_seconds", gauge,
		"Held GPU-seconds of the admitted workloads' pods weighted by measured GPU activity, in the window.", []string{"cluster_queue"}, "one per ClusterQueue"}
	KueueIdleAdmitted = Metric{"gpuwise_window_kueue_idle_admitted_gpu_seconds", gauge,
		"The queue's waste: admitted minus active minus unmeasured GPU-seconds in the window (quota reserved while no pod ran, plus pods idle), at least 0.", []string{"cluster_queue"}, "one per ClusterQueue"}
	KueueIdleCost = Metric{"gpuwise_window_kueue_idle_pods_cost_usd", gauge,
		"Allocated-but-idle GPU dollars of the admitted workloads' pods in the window; absent when none of them was on a priced node.", []string{"cluster_queue"}, "one per ClusterQueue with priced pods"}
	KueuePendingWorkloads = Metric{"gpuwise_window_kueue_pending_workloads", gauge,
		"GPU workloads of the ClusterQueue still waiting for admission at the window's end.", []string{"cluster_queue"}, "one per ClusterQueue"}
	KueuePending = Metric{"gpuwise_window_kueue_pending_gpus", gauge,
		"GPU units the ClusterQueue's waiting workloads ask for at the window's end (the starved demand now).", []string{"cluster_queue"}, "one per ClusterQueue"}
	KueuePendingSeconds = Metric{"gpuwise_window_kueue_pending_gpu_seconds", gauge,
		"GPU units × seconds the ClusterQueue's workloads waited for admission inside the window (the starved demand over the window).", []string{"cluster_queue"}, "one per ClusterQueue"}
	KueueWaitMean = Metric{"gpuwise_window_kueue_wait_mean_seconds", gauge,
		"Mean queue wait (creation to admission) of the workloads admitted inside the window; absent when none was.", []string{"cluster_queue"}, "one per ClusterQueue with admissions"}
	KueueWaitMax = Metric{"gpuwise_window_kueue_wait_max_seconds", gauge,
		"Longest queue wait of the workloads admitted inside the window; absent when none was.", []string{"cluster_queue"}, "one per ClusterQueue with admissions"}
	KueueOldestPending = Metric{"gpuwise_window_kueue_oldest_pending_seconds", gauge,
		"How long the oldest workload still waiting at the window's end has waited (0: none waits).", []string{"cluster_queue"}, "one per ClusterQueue"}

	PlanActions = Metric{"gpuwise_plan_actions", gauge,
		"Tracked savings-plan actions (docs/progress.md) by checklist status: pending, partly, applied (what the cluster shows, or a user's mark), rejected (a user's mark).",
		[]string{"status"}, "4"}
	PlanRealised = Metric{"gpuwise_plan_realised_savings_usd_per_month", gauge,
		"Monthly dollars an applied action of the tracked plan realised: its nodes' run-rate on equal windows before and after it was applied (docs/progress.md); only measured actions have a sample.",
		[]string{"action", "lever"}, "one per measured action"}
	PlanPredicted = Metric{"gpuwise_plan_predicted_savings_usd_per_month", gauge,
		"Monthly dollars the ledger predicted for a measured action of the tracked plan when it was first proposed, beside gpuwise_plan_realised_savings_usd_per_month.",
		[]string{"action", "lever"}, "one per measured action"}
	PlanLeverRealised = Metric{"gpuwise_plan_lever_realised_savings_usd_per_month", gauge,
		"The measured actions' realised monthly dollars summed by lever.", []string{"lever"}, "one per lever with a measured action"}
	PlanRedFlag = Metric{"gpuwise_plan_red_flag", gauge,
		"A red flag watched after an applied action of the tracked plan (docs/progress.md \"Red flags\"): 1 firing, 0 ok; flag is low_utilization_after_mig, oom_kills_up, spot_interruptions, latency_up or cost_up, action the tracked id it blames. Flags the data cannot check have no sample here (gpuwise_plan_red_flag_unwatched).",
		[]string{"action", "lever", "flag"}, "one per watched flag of each applied action"}
	PlanRedFlagUnwatched = Metric{"gpuwise_plan_red_flag_unwatched", gauge,
		"1 for a red flag of an applied action that the data cannot check (latency_up: none of its workloads has a vLLM or TGI latency histogram; a flag without its series): watched by no one, said so rather than passed.",
		[]string{"action", "lever", "flag"}, "one per unwatched flag"}
	PlanChange = Metric{"gpuwise_plan_spend_change_usd_per_month", gauge,
		"The cluster's run-rate on the baseline's window minus on the latest window of the same length (the applied actions' share plus the rest, docs/progress.md); no sample until both windows are in the history.",
		nil, "1"}

	BillUSD = Metric{"gpuwise_window_bill_usd", gauge,
		"With serve --bill: the bill's compute charges in the window (amortized), by kind: bill (all of them), matched (charged to the cluster's GPU nodes; gpuwise prices those node-hours from the bill), cpu_nodes (the cluster's CPU-only nodes), unmatched (no node of the cluster: nodes that left, another cluster), unbilled_nodes (gpuwise's cost of GPU node-hours no bill line covers, catalog-priced), unused_commitment.",
		[]string{"kind"}, "6 (with --bill)"}
	BillUnmatchedGPUInstances = Metric{"gpuwise_window_bill_unmatched_gpu_instances", gauge,
		"With serve --bill: billed GPU instances in the window that no node of the cluster claims.", nil, "1 (with --bill)"}

	PodGPUAllocated = Metric{"gpuwise_window_pod_gpu_allocated_seconds", gauge,
		"GPU-seconds the pod held in the window (only with --metrics-pods).", []string{"namespace", "pod"}, "one per pod (opt-in)"}
	PodUtilization = Metric{"gpuwise_window_pod_gpu_utilization_ratio", gauge,
		"The pod's active over measured allocated GPU-hours in the window (only with --metrics-pods); absent when unmeasured.",
		[]string{"namespace", "pod"}, "one per measured pod (opt-in)"}
	PodCost = Metric{"gpuwise_window_pod_cost_usd", gauge,
		"The pod's cost in the window (only with --metrics-pods).", []string{"namespace", "pod"}, "one per priced pod (opt-in)"}
)

// Families lists every domain metric.
var Families = []*Metric{
	&GPUAllocatedHours, &GPUActiveHours, &GPUIdleHours, &GPUUnmeasuredHours, &Cost, &UnpricedHours, &OOMKills,
	&UnallocatedHours, &UnallocatedCost,
	&WindowSeconds, &WindowEnd, &Partial, &GPUs, &MechanismAllocated, &MechanismCost, &NamespaceUtilization, &NamespaceCost, &NamespaceIdleCost,
	&Utilization, &Coverage, &WindowCost, &IdleCost, &Findings, &FindingsUSD, &FleetGPUs, &SpotNodesEnded, &Savings, &LeverSavings,
	&PlanActions, &PlanRealised, &PlanPredicted, &PlanLeverRealised, &PlanChange, &PlanRedFlag, &PlanRedFlagUnwatched,
	&KueueQuota, &KueueUsed, &KueueBorrowed, &KueueAdmitted, &KueueHeld, &KueueActive, &KueueIdleAdmitted, &KueueIdleCost,
	&KueuePendingWorkloads, &KueuePending, &KueuePendingSeconds, &KueueWaitMean, &KueueWaitMax, &KueueOldestPending,
	&BillUSD, &BillUnmatchedGPUInstances,
	&PodGPUAllocated, &PodUtilization, &PodCost,
}

func (m *Metric) desc() *prometheus.Desc { return prometheus.NewDesc(m.Name, m.Help, m.Labels, nil) }

func (m *Metric) valueType() prometheus.ValueType {
	if m.Type == counter {
		return prometheus.CounterValue
	}
	return prometheus.GaugeValue
}
