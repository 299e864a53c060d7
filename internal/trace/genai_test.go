package trace

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// flatPricer charges gpu dollars per GPU-hour and nothing for CPU or
// memory, so that fixture dollars can be worked out by hand.
type flatPricer struct{ gpu float64 }

func (p flatPricer) Price(n pricing.NodeSpec) (pricing.NodePrice, error) {
	return pricing.NodePrice{NodeUSDPerHour: p.gpu * float64(n.GPUCount), GPUUSDPerHour: p.gpu, Source: "test"}, nil
}

func report(t *testing.T, dir string, opts GenAIOptions, prices pricing.Pricer) *cost.Report {
	t.Helper()
	s, err := ReadGenAI(dir, opts)
	if err != nil {
		t.Fatalf("ReadGenAI(%s): %v", dir, err)
	}
	o := cost.DefaultOptions()
	a, err := cost.Allocate(ct.Prepare(t, s), prices, o)
	if err != nil {
		t.Fatalf("Allocate: %v", err)
	}
	r, err := cost.NewReport(a, cost.DefaultReportOptions())
	if err != nil {
		t.Fatalf("NewReport: %v", err)
	}
	return r
}

// The fixture testdata/small (median step 60 s, window [1000, 1720) = 0.2 h):
//
//	pod a1: 50%, 0%, 100%, 20% at 1000..1180; held [1000, 1240) = 240 s,
//	        active 30+0+60+12 = 102 s, idle (below 10%) 60 s
//	pod b2: 5%, 5% at 1000, 1060; 80%, 80% at 1600, 1660; the 540 s gap
//	        after 1060 is capped at 120 s; held [1000, 1720) = 720 s,
//	        measured 300 s, unmeasured 420 s, active 3+6+48+48 = 105 s, idle 180 s
//	pod c3: 0%, 0% at 1120, 1180; held [1120, 1240) = 120 s, idle 120 s
//
// Allocated 1080 s = 0.3 h, active 207 s = 0.0575 h, idle 360 s = 0.1 h,
// unmeasured 420 s = 7/60 h; utilization 207 / 660.
func TestReadGenAIFixture(t *testing.T) {
	t.Parallel()
	const allocated, active, idle, unmeasured = 0.3, 0.0575, 0.1, 7.0 / 60
	tests := []struct {
		name      string
		opts      GenAIOptions
		wantNodes int
		wantHours cost.Hours
	}{
		{
			name:      "default places all three pods on one 8-GPU p5 node",
			wantNodes: 1,
			wantHours: cost.Hours{Provisioned: 8 * 0.2, Allocated: allocated, Active: active, Idle: idle, Unmeasured: unmeasured, Unallocated: 1.6 - allocated},
		},
		{
			name:      "two GPUs per node needs two nodes",
			opts:      GenAIOptions{InstanceType: "test.2gpu", GPUsPerNode: 2, GPUModel: "H100-80GB", CPUCores: 48, MemoryGiB: 512},
			wantNodes: 2,
			wantHours: cost.Hours{Provisioned: 4 * 0.2, Allocated: allocated, Active: active, Idle: idle, Unmeasured: unmeasured, Unallocated: 0.8 - allocated},
		},
	}
	approx := cmpopts.EquateApprox(0, 1e-9)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := report(t, "testdata/small", tt.opts, flatPricer{gpu: 6})
			if diff := cmp.Diff(tt.wantHours, r.Totals.GPUHours, approx); diff != "" {
				t.Errorf("GPU-hours (-want +got):\n%s", diff)
			}
			if r.Totals.Nodes != tt.wantNodes || r.Totals.GPUPods != 3 {
				t.Errorf("nodes, GPU pods = %d, %d; want %d, 3", r.Totals.Nodes, r.Totals.GPUPods, tt.wantNodes)
			}
			if got := r.Totals.GPUUtilization; got == nil || !cmp.Equal(*got, 207.0/660, approx) {
				t.Errorf("utilization = %v, want %v", got, 207.0/660)
			}
			wantCost := cost.GPUCost{Active: 6 * active, AllocatedIdle: 6 * (allocated - active - unmeasured),
				Unmeasured: 6 * unmeasured, Unallocated: 6 * tt.wantHours.Unallocated}
			if diff := cmp.Diff(wantCost, r.Totals.GPUCost, approx); diff != "" {
				t.Errorf("GPU cost (-want +got):\n%s", diff)
			}
			if err := r.Reconcile(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestReadGenAIFixturePods(t *testing.T) {
	t.Parallel()
	s, err := ReadGenAI("testdata/small", GenAIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type podView struct {
		Name, Owner, Unit, Phase string
		Start, End               time.Duration // after GenAIEpoch
		Measured, Active         float64       // seconds
		FramebufferMaxMiB        float64
	}
	want := []podView{
		{"a1a1a1a1a1a1", "genai-a1a1a1a1", "genai-node-00/gpu0", "", 0, 240 * time.Second, 240, 102, 2048},
		{"b2b2b2b2b2b2", "genai-b2b2b2b2", "genai-node-00/gpu1", "Running", 0, 720 * time.Second, 300, 105, 512},
		{"c3c3c3c3c3c3", "genai-c3c3c3c3", "genai-node-00/gpu2", "", 120 * time.Second, 240 * time.Second, 120, 0, 0},
	}
	var got []podView
	for _, p := range s.Pods {
		h := p.GPUs[0]
		got = append(got, podView{p.Name, p.Owner.Name, h.UnitID, p.Phase, p.Start.Sub(GenAIEpoch), p.End.Sub(GenAIEpoch),
			h.Activity.Seconds, h.Activity.ActiveSeconds, h.FramebufferMiB.Max})
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if d := s.Window.End.Sub(s.Window.Start); d != 720*time.Second || !s.Window.Start.Equal(GenAIEpoch) {
		t.Errorf("window = %v, want 720 s from %v", s.Window, GenAIEpoch)
	}
	if s.ActivityMetric != GenAIActivityMetric {
		t.Errorf("activity metric = %q", s.ActivityMetric)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, want := range []string{"every 60 s", "aws p5.48xlarge us-east-1 on-demand", "no CPU or memory requests",
		"1 memory-used sample(s) of 1 container_ip(s) without a duty-cycle series were skipped: d4d4d4d4d4d4"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

func TestGenAIOptionsShape(t *testing.T) {
	t.Parallel()
	bad := []struct {
		name    string
		opts    GenAIOptions
		wantErr string
	}{
		{"unknown shape", GenAIOptions{InstanceType: "g6.xlarge"},
			"instance type g6.xlarge: node shape unknown, set GPUsPerNode, GPUModel, CPUCores and MemoryGiB"},
		{"p5 with 4 GPUs", GenAIOptions{GPUsPerNode: 4},
			"instance type p5.48xlarge has 8 GPUs, not 4"},
		{"unknown capacity", GenAIOptions{Capacity: "preemptible"},
			`capacity "preemptible" is not one of on-demand, spot, reserved`},
	}
	for _, tt := range bad {
		_, err := ReadGenAI("testdata/small", tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.wantErr)
		}
	}
	opts := GenAIOptions{InstanceType: "g6.12xlarge", GPUsPerNode: 4, GPUModel: "L4", CPUCores: 48, MemoryGiB: 192}
	s, err := ReadGenAI("testdata/small", opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Nodes[0]; n.InstanceType != "g6.12xlarge" || len(n.GPUs) != 4 || n.CPUMilli != 48000 || n.Cloud != "aws" {
		t.Errorf("node = %+v", n)
	}
}
