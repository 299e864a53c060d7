package sim

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// GPUsPerScale is the number of physical GPUs one scale unit (cell) adds.
const GPUsPerScale = 96

// AMDPerScale and NeuronPerScale are the AMD GPUs (8 MI300X) and the
// Neuron devices (16 Trainium) one cell adds with Config.AMD and
// Config.Neuron.
const (
	AMDPerScale    = 8
	NeuronPerScale = 16
	// DRAPerScale and HAMiPerScale are the GPUs of the DRA node (8 H100)
	// and the HAMi node (4 L4) one cell adds with Config.DRA and
	// Config.HAMi.
	DRAPerScale  = 8
	HAMiPerScale = 4
)

// GPUNodesPerScale is the number of GPU nodes one scale unit adds.
const GPUNodesPerScale = 17

// ActivityMetric is the DCGM field the simulated activity stands for.
const ActivityMetric = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"

// Limits that keep a mistyped config from exhausting memory.
const (
	maxScale   = 2000
	maxSamples = 1 << 20 // samples per series
)

// Config steers one simulation. A zero Start, Window, Step or Scale takes
// DefaultConfig's value; Seed 0 is a seed like any other.
type Config struct {
	Seed uint64
	// Start is the window start; the demo uses 2026-11-01T00:00:00Z.
	Start time.Time
	// Window is the length of the window, e.g. 7*24h.
	Window time.Duration
	// Step is the sample step; each sample covers Step of time.
	Step time.Duration
	// Scale is the number of cells: GPUsPerScale GPUs each.
	Scale int
	// AMD adds an Azure ND MI300X v5 node and Neuron an AWS trn1.32xlarge
	// node, with their workloads, to each cell (GPUsPerScale and
	// GPUNodesPerScale do not count them). The demo and the Prometheus
	// tier's history (gpuwise-lab sim history) have both, their series as
	// AMD's device-metrics-exporter and neuron-monitor write them
	// (docs/accelerators.md).
	AMD, Neuron bool
	// DRA adds an AWS p5.48xlarge whose GPUs NVIDIA's DRA driver
	// allocates through ResourceClaims (a whole GPU, a MIG device, a
	// shared claim), and HAMi a g6.12xlarge whose L4s HAMi splits into
	// fractional vGPUs, each with its pods (dra.go; not counted in
	// GPUsPerScale either). The demo has both.
	DRA, HAMi bool
	// Progress, when set, is told each finished cell ("simulating
	// cluster", cells done, Scale); it may be called from any goroutine
	// and never changes the result.
	Progress func(phase string, done, total int64)
}

// DefaultConfig returns the demo cluster's config: seed 1, one week from
// 2026-11-01T00:00:00Z at 5-minute samples, Scale 1 (96 NVIDIA GPUs),
// with the AMD and Trainium nodes and the DRA and HAMi ones.
func DefaultConfig() Config {
	return Config{
		Seed:   1,
		Start:  time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		Window: 7 * 24 * time.Hour,
		Step:   5 * time.Minute,
		Scale:  1,
		AMD:    true,
		Neuron: true,
		DRA:    true,
		HAMi:   true,
	}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Start.IsZero() {
		c.Start = d.Start
	}
	if c.Window == 0 {
		c.Window = d.Window
	}
	if c.Step == 0 {
		c.Step = d.Step
	}
	if c.Scale == 0 {
		c.Scale = d.Scale
	}
	return c
}

// Validate lists every problem with the config, after zero fields have
// taken their defaults.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.Window < time.Hour {
		errs = append(errs, fmt.Errorf("window: %s is shorter than 1h", c.Window))
	}
	if c.Step < time.Second || c.Step > time.Hour {
		errs = append(errs, fmt.Errorf("step: %s is outside 1s to 1h (the hourly series need samples within the hour)", c.Step))
	} else if n := c.Window / c.Step; n > maxSamples {
		errs = append(errs, fmt.Errorf("step: %s gives %d samples per series over %s, more than %d; use a longer step", c.Step, n, c.Window, maxSamples))
	}
	if c.Scale < 1 || c.Scale > maxScale {
		errs = append(errs, fmt.Errorf("scale: %d is outside 1..%d", c.Scale, maxScale))
	}
	return errors.Join(errs...)
}

// Generate builds the simulated cluster and its usage over the window. The
// snapshot has passed cluster.Prepare (unit fractions are set).
func Generate(cfg Config) (*cluster.Snapshot, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("simulation config: %w", err)
	}
	return assemble(cfg, generateCells(cfg))
}

// assemble joins the cells into the snapshot and prepares it.
func assemble(cfg Config, cells []built) (*cluster.Snapshot, error) {
	s := &cluster.Snapshot{
		Window:         cluster.Window{Start: cfg.Start, End: cfg.Start.Add(cfg.Window)},
		Source:         fmt.Sprintf("simulated cluster (seed %d, scale %d)", cfg.Seed, cfg.Scale),
		ActivityMetric: ActivityMetric,
	}
	var nodes, pods int
	for _, c := range cells {
		nodes += len(c.nodes)
		pods += len(c.pods)
	}
	s.Nodes = make([]cluster.Node, 0, nodes)
	s.Pods = make([]cluster.Pod, 0, pods)
	var blind []string
	hourly := make([][]cluster.WorkloadHours, len(cells))
	for i, c := range cells {
		s.Nodes = append(s.Nodes, c.nodes...)
		s.Pods = append(s.Pods, c.pods...)
		blind = append(blind, c.blind...)
		s.DRA = joinDRA(s.DRA, c.dra)
		hourly[i] = c.hourly
	}
	s.Hourly = &cluster.Hourly{IdleThreshold: cluster.DefaultIdleThreshold, Workloads: cluster.JoinHourly(hourly...)}
	s.Notes = notes(blind)
	if _, err := cluster.Prepare(s); err != nil {
		return nil, fmt.Errorf("simulated cluster is inconsistent (a bug in package sim): %w", err)
	}
	return s, nil
}

// generateCells builds every cell on a pool of workers. Each cell has its
// own random streams, so the result does not depend on scheduling.
func generateCells(cfg Config) []built {
	cells := make([]built, cfg.Scale)
	next := make(chan int)
	var wg sync.WaitGroup
	var done atomic.Int64
	for range min(runtime.GOMAXPROCS(0), cfg.Scale) {
		wg.Go(func() {
			for i := range next {
				cells[i] = newCell(cfg, i).build()
				if cfg.Progress != nil {
					cfg.Progress("simulating cluster", done.Add(1), int64(cfg.Scale))
				}
			}
		})
	}
	for i := range cells {
		next <- i
	}
	close(next)
	wg.Wait()
	return cells
}

// notes are the snapshot's data-quality notes: which nodes had no GPU
// usage series.
func notes(blind []string) []string {
	out := []string{"simulated data: nodes, pods and usage are generated, not measured"}
	if len(blind) == 0 {
		return out
	}
	list := blind
	more := ""
	if len(list) > 5 {
		list, more = list[:5], fmt.Sprintf(" and %d more", len(blind)-5)
	}
	return append(out, fmt.Sprintf("dcgm-exporter was down on %d node(s) (%s%s) for the whole window: their GPU pods are unmeasured",
		len(blind), strings.Join(list, ", "), more))
}
