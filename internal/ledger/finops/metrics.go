package finops

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// Status grades a metric against its target.
type Status string

// Statuses. Unavailable means the data the metric needs is missing (never
// shown as zero); info means the metric has no target.
const (
	OK          Status = "ok"
	Review      Status = "review"
	Act         Status = "act"
	Info        Status = "info"
	Unavailable Status = "unavailable"
)

// Metric is one FinOps metric with its target and status.
type Metric struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Value is null when Status is unavailable.
	Value  *float64 `json:"value"`
	Unit   string   `json:"unit"`
	Target string   `json:"target"`
	Status Status   `json:"status"`
	Detail string   `json:"detail"`
	// Items lists the objects behind the value (GPUs, workloads).
	Items []string `json:"items,omitempty"`
	// UnitCosts are the unit-cost metrics' figures per serving workload
	// and per model name within it (cost per 1,000 inferences, per
	// 100,000 tokens); absent on other metrics.
	UnitCosts []UnitCost `json:"unit_costs,omitempty"`
}

// UnitCost is one serving workload's, or one model name's, cost over what
// it served in the window. A model name's cost is, summed over the
// workloads serving it, each workload's cost × the model's share of that
// workload's requests; its tokens figure counts only the workloads whose
// servers counted its tokens.
type UnitCost struct {
	// Workload is the serving workload; empty on a model name's row.
	Workload string `json:"workload,omitempty"`
	// Model is the model name; empty on a workload's row.
	Model string `json:"model,omitempty"`
	// Workloads are the workloads a model name's row sums.
	Workloads []string `json:"workloads,omitempty"`
	// Metric names the counter read ("vllm:request_success_total").
	Metric string `json:"metric"`
	// CostUSD is the window cost divided; Count what it is divided by
	// (requests or generated tokens); PerUnit the cost per 1,000
	// requests or per 100,000 tokens.
	CostUSD float64 `json:"cost_usd"`
	Count   float64 `json:"count"`
	PerUnit float64 `json:"per_unit"`
}

// Hourly is hour-by-hour data over the window (index 0 is the window's
// first hour). Build reads it from the snapshot's hourly series
// (cluster.Hourly, per GPU workload) when the caller gives none; a source
// with more (activity per physical GPU) implements Hourly itself.
type Hourly interface {
	// GPUActivity returns each physical GPU's mean activity per hour (0–1
	// of the whole GPU), keyed "node/gpu<index>"; false when there is none.
	GPUActivity() (map[string][]float64, bool)
	// OOMKills returns OOM kills per hour (across the cluster, or the
	// containers the hourly series cover); false when there are none to
	// read.
	OOMKills() ([]int, bool)
}

// Counters are inference request and token counts from the servers'
// metrics (vLLM, Triton, TGI). Build reads them from the snapshot's
// hourly request and token series when the caller gives none.
type Counters interface {
	// Inference returns each counted workload's requests and tokens in the
	// window; false when no request counters were found.
	Inference() ([]InferenceCount, bool)
}

// InferenceCount is one workload's served requests and generated tokens
// (0 when the server does not count tokens) over the window.
type InferenceCount struct {
	Workload string  `json:"workload"`
	Requests float64 `json:"requests"`
	Tokens   float64 `json:"tokens"`
	// Metric names the counter read ("vllm:request_success_total").
	Metric string `json:"metric"`
	// Models split the counts by the model name the server labels its
	// counters with; nil when it labels none.
	Models []ModelCount `json:"models,omitempty"`
}

// ModelCount is one model name's requests and generated tokens within a
// workload.
type ModelCount struct {
	Model    string  `json:"model"`
	Requests float64 `json:"requests"`
	Tokens   float64 `json:"tokens"`
}

// Metric thresholds (docs/savings.md).
const (
	utilTarget, utilInvestigate     = 0.60, 0.30
	idleOK, idleAct                 = 0.40, 0.70
	unallocOK, unallocAct           = 0.10, 0.25
	spotTarget, spotReview          = 0.50, 0.30
	lowActivity, lowActivityHours   = 0.30, 6
	lowGPUsReview                   = 0.10
	oomRisingFactor, oomRisingFloor = 1.5, 3
)

// noCounters is the reason cost per inference is unavailable.
const noCounters = "no request counters found (vLLM vllm:request_success_total, Triton nv_inference_request_success, TGI tgi_request_success): cost per inference needs them"

// needsHourly is the reason a metric that needs hour-by-hour data is
// unavailable.
const needsHourly = "needs hourly series: the snapshot carries window summaries, not hour-by-hour values"

// needsGPUHourly is the reason the per-GPU rule is unavailable when the
// hourly data has no per-GPU activity (the snapshot's series are per GPU
// workload).
const needsGPUHourly = "needs hour-by-hour activity per physical GPU: the hourly series at hand are per GPU workload"

// Input is what the metrics and red flags read: the snapshot, its
// hour-by-hour signals and request counters (nil: the metrics that need
// them are unavailable, with the reason), the cost engine's allocation and
// report of the same snapshot and prices, and the ledger's actions (a red
// flag names the actions that recover what it points at).
type Input struct {
	Snapshot   *cluster.Prepared
	Hourly     Hourly
	Counters   Counters
	Allocation *cost.Allocation
	Report     *cost.Report
	Actions    []lever.Action
}

// Compute computes the FinOps metrics and red flags the data supports.
func Compute(in Input) ([]Metric, []RedFlag) {
	a, rep := in.Allocation, in.Report
	t := rep.Totals
	ms := []Metric{
		band("gpu_utilization", "GPU utilization (active ÷ provisioned GPU-hours)", t.GPUUtilizationOfProvisioned, "%", "> 60% (investigate < 30%)", utilTarget, utilInvestigate, true,
			fmt.Sprintf("%.0f active of %.0f provisioned GPU-hours whose state is known (unmeasured held time left out, as the report does)", t.GPUHours.Active, t.GPUHours.Provisioned-t.GPUHours.Unmeasured)),
		band("idle_share", "Idle share of measured allocated GPU-hours", t.IdleShare, "%", "< 40% (act > 70%)", idleOK, idleAct, false,
			fmt.Sprintf("%.0f idle GPU-hours (below %.0f%% activity) of %.0f measured allocated", t.GPUHours.Idle, rep.IdleThreshold*100, t.GPUHours.Allocated-t.GPUHours.Unmeasured)),
		band("unallocated_share", "Unallocated share of provisioned GPU-hours", t.UnallocatedShare, "%", "< 10% (act > 25%)", unallocOK, unallocAct, false,
			fmt.Sprintf("%.0f GPU-hours of capacity no pod held", t.GPUHours.Unallocated)),
		lowGPUs(in.Hourly),
		spotTraining(in.Snapshot),
	}
	ms = append(ms, inferenceCost(in.Counters, a)...)
	return ms, redFlags(in, a)
}

// band grades a share against a target (higher or lower is better).
func band(name, title string, v *float64, unit, target string, good, bad float64, higher bool, detail string) Metric {
	m := Metric{Name: name, Title: title, Unit: unit, Target: target, Detail: detail}
	if v == nil {
		m.Status, m.Detail = Unavailable, "no usage data: "+detail
		return m
	}
	pct := *v * 100
	m.Value = &pct
	switch {
	case higher && *v >= good, !higher && *v <= good:
		m.Status = OK
	case higher && *v < bad, !higher && *v > bad:
		m.Status = Act
	default:
		m.Status = Review
	}
	return m
}

// lowGPUs lists GPUs below 30% activity for 6 hours or more in a row.
func lowGPUs(h Hourly) Metric {
	m := Metric{Name: "gpus_below_30pct_6h", Title: "GPUs below 30% activity for 6 h or more in a row", Unit: "GPUs",
		Target: "0 (review > 0, act > 10% of GPUs)", Status: Unavailable, Detail: needsHourly}
	if h == nil {
		return m
	}
	series, ok := h.GPUActivity()
	if !ok {
		m.Detail = needsGPUHourly
		return m
	}
	for gpu, hours := range series {
		if run := longestBelow(hours, lowActivity); run >= lowActivityHours {
			m.Items = append(m.Items, fmt.Sprintf("%s (%d h)", gpu, run))
		}
	}
	slices.Sort(m.Items)
	n := float64(len(m.Items))
	m.Value, m.Detail = &n, fmt.Sprintf("%d of %d GPUs had %d or more consecutive hours below %.0f%% activity", len(m.Items), len(series), lowActivityHours, lowActivity*100)
	switch {
	case n == 0:
		m.Status = OK
	case n > lowGPUsReview*float64(len(series)):
		m.Status = Act
	default:
		m.Status = Review
	}
	return m
}

// longestBelow is the longest run of consecutive values below limit.
func longestBelow(xs []float64, limit float64) int {
	best, run := 0, 0
	for _, x := range xs {
		if x < limit {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// trainingKinds are the owner kinds counted as training (batch jobs and
// training-operator jobs).
var trainingKinds = []string{"Job", "CronJob", "PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob", "TrainJob", "RayJob", "JobSet"}

// spotTraining is the share of training GPU-hours held on spot nodes.
func spotTraining(s *cluster.Prepared) Metric {
	m := Metric{Name: "spot_share_training", Title: "Spot share of training GPU-hours", Unit: "%", Target: "> 50% (act < 30%)"}
	nodes := make(map[string]*cluster.Node, len(s.Nodes()))
	frac := map[string]float64{}
	for i := range s.Nodes() {
		n := &s.Nodes()[i]
		nodes[n.Name] = n
		for _, g := range n.GPUs {
			for _, u := range g.Units {
				frac[u.ID] = u.Fraction
			}
		}
	}
	var all, spot float64
	for i := range s.Pods() {
		p := &s.Pods()[i]
		if !slices.Contains(trainingKinds, p.Owner.Kind) || nodes[p.Node] == nil {
			continue
		}
		h := s.Window().Clip(p.Start, p.End) / 3600
		for _, u := range p.GPUs {
			all += frac[u.UnitID] * h
			if nodes[p.Node].Capacity == cluster.Spot {
				spot += frac[u.UnitID] * h
			}
		}
	}
	if all == 0 {
		m.Status, m.Detail = Unavailable, "no training GPU pods (Jobs, training-operator jobs) in the window"
		return m
	}
	share := spot / all
	out := band(m.Name, m.Title, &share, m.Unit, m.Target, spotTarget, spotReview, true,
		fmt.Sprintf("%.0f of %.0f training GPU-hours on spot nodes (owner kinds %s)", spot, all, lever.ListText(trainingKinds)))
	return out
}

// inferenceCost is cost per 1,000 inferences and per 100,000 tokens of the
// workloads with request counters: their window cost ÷ their counts.
func inferenceCost(c Counters, a *cost.Allocation) []Metric {
	per := Metric{Name: "cost_per_1k_inferences", Title: "Cost per 1,000 inferences", Unit: "USD", Target: "no target: track the trend", Status: Unavailable, Detail: noCounters}
	tok := Metric{Name: "cost_per_100k_tokens", Title: "Cost per 100,000 tokens", Unit: "USD", Target: "no target: track the trend", Status: Unavailable, Detail: noCounters}
	if c == nil {
		return []Metric{per, tok}
	}
	counts, ok := c.Inference()
	if !ok || len(counts) == 0 {
		return []Metric{per, tok}
	}
	spend := map[string]float64{}
	for i := range a.Lines {
		if l := &a.Lines[i]; l.Pod != nil && l.Priced {
			spend[l.Pod.WorkloadKey()] += l.Total()
		}
	}
	// The cluster figure divides the cost of the workloads that count
	// what it divides by (a server without token counters is not in the
	// tokens figure); each item is one workload's own unit cost, then
	// each model name's within it, so one busy model does not hide what
	// the others cost; then each model name's over the workloads serving
	// it, a workload serving several models splitting its cost by their
	// shares of its requests.
	var usd, reqs, tokUSD, toks float64
	var reqItems, tokItems []string
	type modelSum struct {
		usd, reqs, tokUSD, toks float64
		workloads               []string
		metric                  string
	}
	byModel := map[string]*modelSum{}
	var models []string
	for _, ic := range counts {
		w := spend[ic.Workload]
		if ic.Requests > 0 {
			usd, reqs = usd+w, reqs+ic.Requests
			reqItems = append(reqItems, fmt.Sprintf("%s (%s): $%.4f per 1,000 over %.0f requests", ic.Workload, ic.Metric, w/ic.Requests*1000, ic.Requests))
			per.UnitCosts = append(per.UnitCosts, UnitCost{Workload: ic.Workload, Metric: ic.Metric, CostUSD: w, Count: ic.Requests, PerUnit: w / ic.Requests * 1000})
		}
		if ic.Tokens > 0 {
			tokUSD, toks = tokUSD+w, toks+ic.Tokens
			tokItems = append(tokItems, fmt.Sprintf("%s (%s): $%.4f per 100,000 over %.0f tokens", ic.Workload, ic.Metric, w/ic.Tokens*100000, ic.Tokens))
			tok.UnitCosts = append(tok.UnitCosts, UnitCost{Workload: ic.Workload, Metric: ic.Metric, CostUSD: w, Count: ic.Tokens, PerUnit: w / ic.Tokens * 100000})
		}
		if ic.Requests <= 0 {
			continue // no share to split the cost by
		}
		for _, mc := range ic.Models {
			m := byModel[mc.Model]
			if m == nil {
				m = &modelSum{metric: ic.Metric}
				byModel[mc.Model] = m
				models = append(models, mc.Model)
			}
			mUSD := w * mc.Requests / ic.Requests
			m.workloads = append(m.workloads, ic.Workload)
			if m.metric != ic.Metric {
				m.metric = "several servers"
			}
			m.usd, m.reqs = m.usd+mUSD, m.reqs+mc.Requests
			if mc.Tokens > 0 {
				m.tokUSD, m.toks = m.tokUSD+mUSD, m.toks+mc.Tokens
			}
		}
	}
	slices.Sort(models)
	for _, name := range models {
		m := byModel[name]
		if m.reqs > 0 {
			reqItems = append(reqItems, fmt.Sprintf("model %s (%s): $%.4f per 1,000 over %.0f requests in %d workload(s)", name, m.metric, m.usd/m.reqs*1000, m.reqs, len(m.workloads)))
			per.UnitCosts = append(per.UnitCosts, UnitCost{Model: name, Workloads: m.workloads, Metric: m.metric, CostUSD: m.usd, Count: m.reqs, PerUnit: m.usd / m.reqs * 1000})
		}
		if m.toks > 0 {
			tokItems = append(tokItems, fmt.Sprintf("model %s (%s): $%.4f per 100,000 over %.0f tokens in %d workload(s)", name, m.metric, m.tokUSD/m.toks*100000, m.toks, len(m.workloads)))
			tok.UnitCosts = append(tok.UnitCosts, UnitCost{Model: name, Workloads: m.workloads, Metric: m.metric, CostUSD: m.tokUSD, Count: m.toks, PerUnit: m.tokUSD / m.toks * 100000})
		}
	}
	fill := func(m *Metric, cost, n, unit float64, what string, items []string) {
		if n <= 0 {
			m.Detail = "request counters found, but no " + what + " counted"
			return
		}
		v := math.Round(cost/n*unit*100) / 100
		m.Value, m.Status, m.Items = &v, Info, items
		workloads, models := 0, 0
		for _, u := range m.UnitCosts {
			if u.Model == "" {
				workloads++
			} else {
				models++
			}
		}
		named := ""
		if models > 0 {
			named = fmt.Sprintf(" and their %d model name(s)", models)
		}
		m.Detail = fmt.Sprintf("$%.2f over %.0f %s in the window, over the %d workload(s) whose servers count them (each one's own unit cost%s: the unit costs table, advise -o csv --csv-table unit-costs, -o json)", cost, n, what, workloads, named)
	}
	fill(&per, usd, reqs, 1000, "requests", reqItems)
	fill(&tok, tokUSD, toks, 100000, "tokens", tokItems)
	return []Metric{per, tok}
}
