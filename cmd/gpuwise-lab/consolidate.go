package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/trace"
)

// consolidateOptions are the flags of `gpuwise-lab consolidate`.
type consolidateOptions struct {
	Nodes, Pods string
	Output      string
}

func newConsolidateCmd(out io.Writer) *cobra.Command {
	o := &consolidateOptions{}
	cmd := &cobra.Command{
		Use:   "consolidate --nodes FILE --pods FILE",
		Short: "Pack an openb trace's Running pods from scratch and compare GPUs used with the lower bound",
		Long: "consolidate reads an openb node list and pod list, keeps the GPU nodes and the pods whose\n" +
			"pod_phase is Running, packs them from scratch with gpuwise's consolidation planner (num_gpu\n" +
			"whole GPUs, gpu_milli shares of one GPU, gpu_spec model sets, CPU and memory), and reports\n" +
			"the GPUs and nodes used against the lower bound max(⌈Σ gpu demand / 1000⌉, Σ per model\n" +
			"⌈demand pinned to that model / 1000⌉) and the time the planner took. See docs/planning.md.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runConsolidate(o, out) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Nodes, "nodes", "", "openb node list, e.g. ../shared/data/openb/openb_node_list_gpu_node.csv")
	f.StringVar(&o.Pods, "pods", "", "openb pod list, e.g. ../shared/data/openb/openb_pod_list_default.csv")
	f.StringVarP(&o.Output, "output", "o", "table", "output format: table or json")
	return cmd
}

func runConsolidate(o *consolidateOptions, out io.Writer) error {
	if o.Nodes == "" || o.Pods == "" {
		return usageErrorf("consolidate needs --nodes FILE and --pods FILE")
	}
	if o.Output != "table" && o.Output != "json" {
		return usageErrorf("output format %q is not one of table, json", o.Output)
	}
	nodes, pods, err := readOpenBFiles(o.Nodes, o.Pods)
	if err != nil {
		return runError{err}
	}
	res, err := consolidateOpenB(nodes, pods)
	if err != nil {
		return runError{err}
	}
	if o.Output == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return writeConsolidation(out, res)
}

func readOpenBFiles(nodesPath, podsPath string) ([]trace.OpenBNode, []trace.OpenBPod, error) {
	nf, err := os.Open(nodesPath)
	if err != nil {
		return nil, nil, inputError{err}
	}
	defer nf.Close()
	nodes, err := trace.ReadOpenBNodes(nf)
	if err != nil {
		return nil, nil, inputError{fmt.Errorf("%s: %w", nodesPath, err)}
	}
	pf, err := os.Open(podsPath)
	if err != nil {
		return nil, nil, inputError{err}
	}
	defer pf.Close()
	pods, err := trace.ReadOpenBPods(pf)
	if err != nil {
		return nil, nil, inputError{fmt.Errorf("%s: %w", podsPath, err)}
	}
	if len(pods) > 0 && !pods[0].Lifecycle {
		return nil, nil, inputError{fmt.Errorf("%s: a 5-column openb pod list has no pod_phase, so its Running pods are unknown; "+
			"consolidate needs an 11-column list such as openb_pod_list_default.csv", podsPath)}
	}
	return nodes, pods, nil
}

// Consolidation is the result of packing a trace from scratch.
type Consolidation struct {
	Pods       int `json:"pods"`     // Running pods packed
	GPUPods    int `json:"gpu_pods"` // of which request GPUs
	Nodes      int `json:"nodes"`    // GPU nodes available
	GPUs       int `json:"gpus"`
	NodesUsed  int `json:"nodes_used"`
	GPUsUsed   int `json:"gpus_used"`
	LowerBound int `json:"lower_bound_gpus"`
	// OverBound is GPUsUsed / LowerBound − 1.
	OverBound float64      `json:"over_bound"`
	Unplaced  int          `json:"unplaced"`
	Seconds   float64      `json:"seconds"`
	Models    []ModelUsage `json:"models"`
}

// ModelUsage is one GPU model's share of a consolidation.
type ModelUsage struct {
	Model    string `json:"model"`
	GPUs     int    `json:"gpus"`
	GPUsUsed int    `json:"gpus_used"`
	// DemandMilli is the GPU demand of pods that may run on this model
	// only; Bound is ⌈DemandMilli / 1000⌉, the fewest GPUs of the model
	// any packing needs.
	DemandMilli int64 `json:"pinned_demand_milli"`
	Bound       int   `json:"lower_bound_gpus"`
}

// consolidateOpenB packs the Running pods onto the GPU nodes from scratch.
func consolidateOpenB(rows []trace.OpenBNode, pods []trace.OpenBPod) (*Consolidation, error) {
	p := &packing.Problem{}
	res := &Consolidation{}
	models := map[string]*ModelUsage{}
	for _, r := range rows {
		if r.GPUs == 0 {
			continue
		}
		p.Nodes = append(p.Nodes, packing.Node{Name: r.Name, Pool: fmt.Sprintf("%s-%dgpu", r.Model, r.GPUs), Model: r.Model,
			GPUs: r.GPUs, CPUMilli: r.CPUMilli, MemoryBytes: r.MemoryMiB << 20})
		mu := models[r.Model]
		if mu == nil {
			mu = &ModelUsage{Model: r.Model}
			models[r.Model] = mu
		}
		mu.GPUs += r.GPUs
		res.Nodes++
		res.GPUs += r.GPUs
	}
	var total int64
	for _, r := range pods {
		if r.Phase != "Running" {
			continue
		}
		w := packing.Workload{ID: r.Name, CPUMilli: r.CPUMilli, MemoryBytes: r.MemoryMiB << 20, Models: r.GPUSpec}
		demand := openBDemand(r)
		w.Demand = demand
		p.Workloads = append(p.Workloads, w)
		res.Pods++
		milli := int64(r.NumGPU) * min(r.GPUMilli, 1000)
		if r.NumGPU > 0 {
			res.GPUPods++
		}
		total += milli
		if len(r.GPUSpec) == 1 {
			if mu := models[r.GPUSpec[0]]; mu != nil {
				mu.DemandMilli += milli
			}
		}
	}
	start := time.Now()
	pl, err := packing.Solve(p)
	if err != nil {
		return nil, err
	}
	res.Seconds = time.Since(start).Seconds()
	res.summarize(pl, models, total)
	return res, nil
}

// openBDemand converts a pod row: no GPUs, a share of one GPU (gpu_milli
// below 1000), or num_gpu whole GPUs.
func openBDemand(r trace.OpenBPod) packing.Demand {
	switch {
	case r.NumGPU == 0:
		return packing.Demand{Kind: packing.NoGPU}
	case r.NumGPU == 1 && r.GPUMilli < 1000:
		return packing.Demand{Kind: packing.Shared, Milli: max(r.GPUMilli, 1)}
	}
	return packing.Demand{Kind: packing.Whole, GPUs: r.NumGPU}
}

func (res *Consolidation) summarize(pl *packing.Plan, models map[string]*ModelUsage, total int64) {
	pinned := 0
	for _, mu := range models {
		mu.Bound = int((mu.DemandMilli + 999) / 1000)
		pinned += mu.Bound
		res.Models = append(res.Models, *mu)
	}
	res.LowerBound = max(int((total+999)/1000), pinned)
	used := map[string]int{}
	for _, n := range pl.Nodes {
		if !n.Keep {
			continue
		}
		res.NodesUsed++
		for _, g := range n.GPUs {
			if g.Mode != packing.ModeFree {
				used[n.Model]++
				res.GPUsUsed++
			}
		}
	}
	for i := range res.Models {
		res.Models[i].GPUsUsed = used[res.Models[i].Model]
	}
	slices.SortFunc(res.Models, func(a, b ModelUsage) int { return b.GPUs - a.GPUs })
	res.Unplaced = len(pl.Unplaced)
	if res.LowerBound > 0 {
		res.OverBound = float64(res.GPUsUsed)/float64(res.LowerBound) - 1
	}
}

func writeConsolidation(out io.Writer, res *Consolidation) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "model\tGPUs\tused\tpinned demand (GPUs)\tbound\t\n")
	for _, m := range res.Models {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%d\t\n", m.Model, m.GPUs, m.GPUsUsed, float64(m.DemandMilli)/1000, m.Bound)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(out, "\n%d Running pods (%d with GPUs) packed from scratch onto %d GPU nodes (%d GPUs) in %.3f s\n"+
		"GPUs used %d, lower bound %d (+%.2f%%); nodes used %d; unplaced %d\n",
		res.Pods, res.GPUPods, res.Nodes, res.GPUs, res.Seconds, res.GPUsUsed, res.LowerBound, 100*res.OverBound, res.NodesUsed, res.Unplaced)
	return err
}
