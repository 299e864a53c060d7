package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/render"
	"github.com/gpuwise/gpuwise/internal/snapshot"
	"github.com/gpuwise/gpuwise/internal/trace"
)

// replayOptions are the flags of replay-genai.
type replayOptions struct {
	Dir           string
	Output        string
	By            string
	IdleShare     string
	IdleThreshold float64
	SnapshotOut   string
	// Node is where the trace's pods are placed, one per GPU; its shape
	// comes from the price catalog when an instance type is given.
	Node trace.GenAIOptions
}

func newReplayGenAICmd(out io.Writer) *cobra.Command {
	def := cost.DefaultOptions()
	o := &replayOptions{Output: "json", By: cost.DefaultReportOptions().By, IdleShare: string(def.IdleShare), IdleThreshold: def.IdleThreshold}
	cmd := &cobra.Command{
		Use:   "replay-genai --dir DIR",
		Short: "Build a cost report from the Alibaba GenAI-2026 pod GPU trace",
		Long: "replay-genai streams pod_gpu_duty_cycle.csv.gz and pod_gpu_memory_used_bytes.csv.gz from DIR\n" +
			"into a snapshot (one pod per container_ip holding one whole GPU, placed on nodes of one\n" +
			"priced instance type, AWS p5.48xlarge us-east-1 on-demand by default) and prints its cost report.",
		RunE: runE(func() error { return runReplay(o, out) }),
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", "", "directory holding the GenAI-2026 trace files (required)")
	f.StringVarP(&o.Output, "output", "o", o.Output, "output format: json or table")
	f.StringVar(&o.By, "by", o.By, "group rows by namespace, workload, pod, node, gpu-model, capacity-type or label:KEY")
	f.StringVar(&o.IdleShare, "idle-share", o.IdleShare, "where unallocated cost goes: none, node or cluster")
	f.Float64Var(&o.IdleThreshold, "idle-threshold", o.IdleThreshold, "activity (0-1) below which a GPU counts as idle")
	f.StringVar(&o.SnapshotOut, "snapshot-out", "", "also write the snapshot to this file (gzip JSON, readable by gpuwise --from)")
	f.StringVar(&o.Node.Cloud, "cloud", "", "cloud of the assumed nodes (default aws)")
	f.StringVar(&o.Node.Region, "region", "", "region of the assumed nodes (default us-east-1)")
	f.StringVar(&o.Node.InstanceType, "instance-type", "", "instance type of the assumed nodes (default p5.48xlarge); its shape comes from the price catalog")
	f.StringVar(&o.Node.Capacity, "capacity-type", "", "capacity type of the assumed nodes: on-demand, spot or reserved (default on-demand)")
	return cmd
}

// runReplay builds the snapshot, allocates its cost and writes the report.
func runReplay(o *replayOptions, w io.Writer) error {
	costOpts, reportOpts, err := o.costOptions()
	if err != nil {
		return err
	}
	node, err := nodeShape(o.Node, pricing.Embedded())
	if err != nil {
		return err
	}
	s, err := trace.ReadGenAI(o.Dir, node)
	if err != nil {
		return inputError{err}
	}
	if o.SnapshotOut != "" {
		if err := snapshot.WriteFile(o.SnapshotOut, s); err != nil {
			return err
		}
	}
	p, err := cluster.Prepare(s)
	if err != nil {
		return inputError{fmt.Errorf("trace snapshot is inconsistent: %w", err)}
	}
	a, err := cost.Allocate(p, pricing.Embedded(), costOpts)
	if err != nil {
		return fmt.Errorf("allocating cost: %w", err)
	}
	r, err := cost.NewReport(a, reportOpts)
	if err != nil {
		return fmt.Errorf("building report: %w", err)
	}
	return writeReport(w, r, o.Output)
}

// costOptions checks the flags that need no data and turns them into cost
// options; every problem is a usage error.
func (o *replayOptions) costOptions() (cost.Options, cost.ReportOptions, error) {
	var probs []string
	if o.Dir == "" {
		probs = append(probs, "--dir is required: the directory holding "+trace.DutyCycleFile+" and "+trace.MemoryUsedFile)
	}
	if o.Output != "json" && o.Output != "table" {
		probs = append(probs, fmt.Sprintf("output format %q is not one of json, table", o.Output))
	}
	opts := cost.DefaultOptions()
	opts.IdleShare, opts.IdleThreshold = cost.IdleShare(o.IdleShare), o.IdleThreshold
	ropts := cost.DefaultReportOptions()
	ropts.By = o.By
	for _, err := range []error{opts.Validate(), ropts.Validate()} {
		if err != nil {
			probs = append(probs, err.Error())
		}
	}
	if len(probs) > 0 {
		return opts, ropts, usageErrorf("%s", strings.Join(probs, "; "))
	}
	return opts, ropts, nil
}

// nodeShape fills the node shape of a chosen instance type from the
// catalog; with none chosen, trace's default (p5.48xlarge) applies.
func nodeShape(n trace.GenAIOptions, c *pricing.Catalog) (trace.GenAIOptions, error) {
	switch n.Capacity {
	case "", cluster.OnDemand, cluster.Spot, cluster.Reserved:
	default:
		return n, usageErrorf("capacity type %q is not one of on-demand, spot, reserved", n.Capacity)
	}
	if n.InstanceType == "" {
		return n, nil
	}
	cloud, region := cmp.Or(n.Cloud, "aws"), cmp.Or(n.Region, "us-east-1")
	e, ok := c.Lookup(cloud, region, n.InstanceType)
	if !ok {
		return n, usageErrorf("instance type %s is not in the price catalog for %s %s; pick a priced instance type", n.InstanceType, cloud, region)
	}
	if e.GPUCount < 1 || e.GPUModel == "" {
		return n, usageErrorf("instance type %s has %g GPUs; pick one with whole GPUs", n.InstanceType, e.GPUCount)
	}
	n.GPUsPerNode, n.GPUModel = int(e.GPUCount), e.GPUModel
	n.CPUCores, n.MemoryGiB = int64(e.VCPUs), int64(e.MemoryGiB)
	return n, nil
}

func writeReport(w io.Writer, r *cost.Report, format string) error {
	if format == "table" {
		return render.Report(w, r, render.Table, render.Options{})
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding report: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
