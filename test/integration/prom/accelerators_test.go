//go:build integration

package prom_test

import (
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cost"
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
