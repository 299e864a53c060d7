//go:build integration

package prom_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/prom"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// TestAMDExporterFromPrometheus (issue 28.4): the history's MI300X nodes
// (one per cell; their series as AMD's device-metrics-exporter writes
// them: gpu_gfx_activity in percent, gpu_used_vram, hostname and gpu_id
// labels; their GPUs as kube-state-metrics' amd_com_gpu) read from the
// real Prometheus match the ground truth per node: GPU-hours held and
// unallocated exactly, every held hour measured, activity within
// tolerance, by every read mode.
func TestAMDExporterFromPrometheus(t *testing.T) {
	url, truthFile := state(t)
	want, stderr, code := report(t, "report", "--from", truthFile, "--window", window, "-o", "json", "--by", "node")
	if code != cli.ExitOK {
		t.Fatalf("report --from truth: exit %d: %s", code, stderr)
	}
	amd := map[string]cost.Row{}
	for _, r := range want.Rows {
		if strings.Contains(r.Key, "serve-mi300x-") {
			amd[r.Key] = r
		}
	}
	if len(amd) == 0 {
		t.Fatal("the history has no MI300X node")
	}
	for _, read := range []string{"remote", "raw", "range"} {
		t.Run(read, func(t *testing.T) {
			got, stderr, code := report(t, "report", "--prometheus", url, "--window", window, "--end", end, "-o", "json", "--by", "node",
				"--prometheus-read", read)
			if code != cli.ExitOK {
				t.Fatalf("report --prometheus: exit %d: %s", code, stderr)
			}
			seen := 0
			for _, g := range got.Rows {
				w, ok := amd[g.Key]
				if !ok {
					continue
				}
				seen++
				switch {
				case !near(g.GPUHours.Allocated, w.GPUHours.Allocated, 1e-9) || !near(g.GPUHours.Unallocated, w.GPUHours.Unallocated, 1e-9):
					t.Errorf("%s: %.3f allocated, %.3f unallocated GPU-hours; want %.3f, %.3f", g.Key, g.GPUHours.Allocated,
						g.GPUHours.Unallocated, w.GPUHours.Allocated, w.GPUHours.Unallocated)
				case g.GPUHours.Unmeasured != 0 || w.GPUHours.Active <= 0:
					t.Errorf("%s: %.3f GPU-hours unmeasured (truth active %.3f): the AMD exporter was not read", g.Key, g.GPUHours.Unmeasured, w.GPUHours.Active)
				case !near(g.GPUHours.Active, w.GPUHours.Active, 2*activityTolerance):
					t.Errorf("%s: %.3f active GPU-hours, want %.3f ± %.1f%%", g.Key, g.GPUHours.Active, w.GPUHours.Active, 200*activityTolerance)
				}
			}
			if seen != len(amd) {
				t.Errorf("%d of the %d MI300X nodes in the Prometheus report", seen, len(amd))
			}
		})
	}
}

// TestNeuronExporterFromPrometheus (issue 28.4): the history's Trainium
// nodes (one per cell; neuron-monitor's neuroncore_utilization_ratio, one
// series per NeuronCore with the instance's labels and no pod label;
// their devices as kube-state-metrics' aws_amazon_com_neuron) read from
// the real Prometheus match the ground truth per node, by every read
// mode: device-hours held and unallocated exactly, every held hour
// measured (the Jobs hold every device of their node: the cores are
// joined to the node by instance id and to the Job by time), activity
// within tolerance.
func TestNeuronExporterFromPrometheus(t *testing.T) {
	url, truthFile := state(t)
	want, stderr, code := report(t, "report", "--from", truthFile, "--window", window, "-o", "json", "--by", "node")
	if code != cli.ExitOK {
		t.Fatalf("report --from truth: exit %d: %s", code, stderr)
	}
	trn := map[string]cost.Row{}
	for _, r := range want.Rows {
		if strings.Contains(r.Key, "train-trn1-") {
			trn[r.Key] = r
		}
	}
	if len(trn) == 0 {
		t.Fatal("the history has no Trainium node")
	}
	for _, read := range []string{"remote", "raw", "range"} {
		t.Run(read, func(t *testing.T) {
			got, stderr, code := report(t, "report", "--prometheus", url, "--window", window, "--end", end, "-o", "json", "--by", "node",
				"--prometheus-read", read)
			if code != cli.ExitOK {
				t.Fatalf("report --prometheus: exit %d: %s", code, stderr)
			}
			seen := 0
			for _, g := range got.Rows {
				w, ok := trn[g.Key]
				if !ok {
					continue
				}
				seen++
				t.Logf("%s: %.3f active, %.3f idle, %.3f unmeasured device-hours (truth %.3f active, %.3f idle)", g.Key,
					g.GPUHours.Active, g.GPUHours.Idle, g.GPUHours.Unmeasured, w.GPUHours.Active, w.GPUHours.Idle)
				switch {
				case g.Vendor != "aws-neuron":
					t.Errorf("%s: vendor %q, want aws-neuron", g.Key, g.Vendor)
				case !near(g.GPUHours.Allocated, w.GPUHours.Allocated, 1e-9) || !near(g.GPUHours.Unallocated, w.GPUHours.Unallocated, 1e-9):
					t.Errorf("%s: %.3f allocated, %.3f unallocated device-hours; want %.3f, %.3f", g.Key, g.GPUHours.Allocated,
						g.GPUHours.Unallocated, w.GPUHours.Allocated, w.GPUHours.Unallocated)
				case g.GPUHours.Unmeasured != 0 || w.GPUHours.Active <= 0:
					t.Errorf("%s: %.3f device-hours unmeasured (truth active %.3f): neuron-monitor's series were not read", g.Key, g.GPUHours.Unmeasured, w.GPUHours.Active)
				case !near(g.GPUHours.Active, w.GPUHours.Active, 2*activityTolerance):
					t.Errorf("%s: %.3f active device-hours, want %.3f ± %.1f%%", g.Key, g.GPUHours.Active, w.GPUHours.Active, 200*activityTolerance)
				}
			}
			if seen != len(trn) {
				t.Errorf("%d of the %d Trainium nodes in the Prometheus report", seen, len(trn))
			}
		})
	}
}

// TestNeuronMemoryFromPrometheus (issue 28.4): the history's Trainium
// Jobs' device memory, written as neuron-monitor's per-core
// neuroncore_memory_usage_model_code and _tensors series (bytes, no pod
// label), read back from the real Prometheus by remote read (the
// default mode for this history; the unit tests cover raw and range) into
// each held device's memory: per device, the mean MiB within the activity
// tolerance of the simulator's and the peak within 1 %, every measured
// holding with its memory.
func TestNeuronMemoryFromPrometheus(t *testing.T) {
	url, truthFile := state(t)
	truth, err := snapshot.ReadFile(truthFile)
	if err != nil {
		t.Fatal(err)
	}
	stop, _ := time.Parse(time.RFC3339, end)
	type mem struct{ integral, seconds, peak float64 }
	devices := func(s *cluster.Snapshot) map[string]*mem {
		out := map[string]*mem{}
		for _, p := range s.Pods {
			for _, h := range p.GPUs {
				if !strings.Contains(h.UnitID, "train-trn1-") || h.Activity == nil {
					continue
				}
				m := out[h.UnitID]
				if m == nil {
					m = &mem{}
					out[h.UnitID] = m
				}
				if h.FramebufferMiB == nil {
					m.seconds = math.NaN() // measured without memory
					continue
				}
				m.integral += h.FramebufferMiB.Integral
				m.seconds += h.FramebufferMiB.Seconds
				m.peak = max(m.peak, h.FramebufferMiB.Max)
			}
		}
		return out
	}
	want := devices(truth)
	if len(want) == 0 {
		t.Fatal("the history's Trainium devices have no measured holding")
	}
	for _, read := range []string{prom.ReadRemote} {
		t.Run(read, func(t *testing.T) {
			o := prom.Defaults()
			o.Client.URL, o.Read = url, read
			o.Window = cluster.Window{Start: stop.Add(-14 * 24 * time.Hour), End: stop}
			s, err := prom.Build(context.Background(), o)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			got := devices(s)
			for id, w := range want {
				g := got[id]
				switch {
				case g == nil || math.IsNaN(g.seconds) || g.seconds == 0:
					t.Errorf("%s: no device memory read (%+v)", id, g)
				case !near(g.integral/g.seconds, w.integral/w.seconds, 2*activityTolerance) || !near(g.peak, w.peak, 0.01):
					t.Errorf("%s: mean %.1f MiB, peak %.1f; want %.1f, %.1f", id, g.integral/g.seconds, g.peak, w.integral/w.seconds, w.peak)
				}
			}
		})
	}
}
