package trace

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// File names of the GenAI-2026 trace inside its directory.
const (
	DutyCycleFile  = "pod_gpu_duty_cycle.csv.gz"
	MemoryUsedFile = "pod_gpu_memory_used_bytes.csv.gz"
)

// GenAIActivityMetric is the snapshot's ActivityMetric for this trace.
const GenAIActivityMetric = "DCGM_FI_DEV_GPU_UTIL (GenAI-2026 duty cycle)"

// GenAIEpoch is the time the trace's first timestamp maps to: timestamps
// are anonymized, so only offsets from the first one carry meaning.
var GenAIEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// GenAIOptions say where the trace's pods are assumed to run, one pod per
// GPU. The zero value means AWS p5.48xlarge in us-east-1, on-demand, 8 pods
// per node. Another instance type needs its shape (GPUsPerNode, GPUModel,
// CPUCores, MemoryGiB; GPUMemoryMiB optional), which gpuwise-lab takes from
// the price catalog. GPUsPerNode must be the instance's real GPU count, since
// pricing splits the instance's price over the node's GPUs.
type GenAIOptions struct {
	Cloud        string
	Region       string
	InstanceType string
	// Capacity is on-demand, spot or reserved.
	Capacity string
	// GPUsPerNode is the GPUs of each node, and so the pods placed on it.
	GPUsPerNode  int
	GPUModel     string
	GPUMemoryMiB int64
	CPUCores     int64
	MemoryGiB    int64
}

// p5 is the default node: 8 × H100-80GB, 192 vCPU, 2048 GiB.
var p5 = GenAIOptions{
	Cloud: "aws", Region: "us-east-1", InstanceType: "p5.48xlarge", Capacity: cluster.OnDemand,
	GPUsPerNode: 8, GPUModel: "H100-80GB", GPUMemoryMiB: 81559, CPUCores: 192, MemoryGiB: 2048,
}

// withDefaults fills unset fields: place and capacity from p5 always, the
// node shape only when the instance type is p5's.
func (o GenAIOptions) withDefaults() (GenAIOptions, error) {
	o.Cloud = cmp.Or(o.Cloud, p5.Cloud)
	o.Region = cmp.Or(o.Region, p5.Region)
	o.InstanceType = cmp.Or(o.InstanceType, p5.InstanceType)
	o.Capacity = cmp.Or(o.Capacity, p5.Capacity)
	if strings.EqualFold(o.InstanceType, p5.InstanceType) {
		o.GPUsPerNode = cmp.Or(o.GPUsPerNode, p5.GPUsPerNode)
		o.GPUModel = cmp.Or(o.GPUModel, p5.GPUModel)
		o.GPUMemoryMiB = cmp.Or(o.GPUMemoryMiB, p5.GPUMemoryMiB)
		o.CPUCores = cmp.Or(o.CPUCores, p5.CPUCores)
		o.MemoryGiB = cmp.Or(o.MemoryGiB, p5.MemoryGiB)
	}
	if strings.EqualFold(o.InstanceType, p5.InstanceType) && o.GPUsPerNode != p5.GPUsPerNode {
		return o, fmt.Errorf("instance type %s has %d GPUs, not %d: its price would be split over the wrong GPU count",
			o.InstanceType, p5.GPUsPerNode, o.GPUsPerNode)
	}
	switch o.Capacity {
	case cluster.OnDemand, cluster.Spot, cluster.Reserved:
	default:
		return o, fmt.Errorf("capacity %q is not one of on-demand, spot, reserved", o.Capacity)
	}
	var missing []string
	if o.GPUsPerNode < 1 {
		missing = append(missing, "GPUsPerNode")
	}
	if o.GPUModel == "" {
		missing = append(missing, "GPUModel")
	}
	if o.CPUCores < 1 || o.MemoryGiB < 1 {
		missing = append(missing, "CPUCores and MemoryGiB")
	}
	if len(missing) > 0 {
		return o, fmt.Errorf("instance type %s: node shape unknown, set %s", o.InstanceType, strings.Join(missing, ", "))
	}
	return o, nil
}

// ReadGenAI builds a snapshot from the GenAI-2026 trace in dir: one pod per
// container_ip, each holding one whole GPU, with duty cycle as activity and
// memory used as framebuffer. The snapshot has passed cluster.Prepare.
func ReadGenAI(dir string, opts GenAIOptions) (*cluster.Snapshot, error) {
	return readGenAI(dir, opts, openFile)
}

func readGenAI(dir string, opts GenAIOptions, open opener) (*cluster.Snapshot, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	dutyPath, memPath := filepath.Join(dir, DutyCycleFile), filepath.Join(dir, MemoryUsedFile)
	duty, err := scanSeries(open, dutyPath, checkPercent, 0)
	if err != nil {
		return nil, fmt.Errorf("reading duty cycle: %w", err)
	}
	mem, err := scanSeries(open, memPath, checkNonNegative, duty.step)
	if err != nil {
		return nil, fmt.Errorf("reading memory used: %w", err)
	}
	activity := make(map[string]*usage.Activity, len(duty.pods))
	for pod := range duty.pods {
		activity[pod] = &usage.Activity{}
	}
	err = accumulate(open, dutyPath, checkPercent, duty.step, func(pod string, v, sec float64) {
		if a := activity[pod]; a != nil { // nil only if the file changed between passes
			a.Add(v/100, sec)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("reading duty cycle: %w", err)
	}
	framebuffer := map[string]*usage.Gauge{}
	err = accumulate(open, memPath, checkNonNegative, mem.step, func(pod string, v, sec float64) {
		if duty.pods[pod] == nil {
			return // no duty-cycle series: not a pod of the snapshot (noted)
		}
		if framebuffer[pod] == nil {
			framebuffer[pod] = &usage.Gauge{}
		}
		framebuffer[pod].Add(v/(1<<20), sec)
	})
	if err != nil {
		return nil, fmt.Errorf("reading memory used: %w", err)
	}
	s := build(dir, opts, duty, mem, activity, framebuffer)
	if _, err := cluster.Prepare(s); err != nil {
		return nil, fmt.Errorf("building snapshot from %s: %w", dir, err)
	}
	return s, nil
}

func checkPercent(v float64) error {
	if v < 0 || v > 100 {
		return fmt.Errorf("duty cycle is outside [0, 100] percent")
	}
	return nil
}

func checkNonNegative(v float64) error {
	if v < 0 {
		return fmt.Errorf("memory used is negative")
	}
	return nil
}

// clock maps anonymized timestamps onto GenAIEpoch.
type clock struct{ origin float64 }

func (c clock) at(t float64) time.Time {
	return GenAIEpoch.Add(time.Duration(math.Round((t - c.origin) * float64(time.Second))))
}
