package capacity

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// diurnal is a service of four whole-GPU replicas over one day whose load
// (GPUs at full activity) is 0.5 at night and 2.6 in the afternoon: at a
// 65% target the trough needs one replica (0.5 / 0.65) and the peak four
// (2.6 / 0.65 = 4).
func diurnal(requests bool) *cluster.WorkloadHours {
	w := &cluster.WorkloadHours{Workload: "inference/Deployment/asr", Server: cluster.ServerTriton}
	for h := 0; h < 24; h++ {
		load := 0.5
		switch {
		case h >= 12 && h < 18:
			load = 2.6
		case h >= 8 && h < 20:
			load = 1.5
		}
		w.Pods = append(w.Pods, 4)
		w.GPUHeld = append(w.GPUHeld, 4)
		w.GPUMeasured = append(w.GPUMeasured, 4)
		w.GPUActive = append(w.GPUActive, float32(load))
		w.GPUIdle = append(w.GPUIdle, 0)
		if requests {
			w.Requests = append(w.Requests, float32(load*10000))
			w.QueueDepth = append(w.QueueDepth, float32(load*3))
		}
	}
	return w
}

func snapshotOf(ws ...*cluster.WorkloadHours) *cluster.Snapshot {
	h := &cluster.Hourly{IdleThreshold: cluster.DefaultIdleThreshold}
	for _, w := range ws {
		h.Workloads = append(h.Workloads, *w)
	}
	return &cluster.Snapshot{Hourly: h}
}

func TestDiurnalTroughNeedsOneOfFour(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		requests   bool
		wantSignal string
		wantSizing string
	}{
		{"Triton counters: queue depth scales, requests size", true, SignalQueue, "requests"},
		{"DCGM only: activity scales and sizes", false, SignalActivity, "gpu-activity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := DefaultAutoscalePolicy()
			p.Stabilization, p.Startup = 0, 0
			got, skipped, err := Autoscale(snapshotOf(diurnal(tc.requests)), p)
			if err != nil || len(got) != 1 || len(skipped) != 0 {
				t.Fatalf("Autoscale: %d scalings, %v skipped, %v", len(got), skipped, err)
			}
			sc := got[0]
			if sc.Trough != 1 || sc.Peak != 4 || sc.Replicas != 4 || sc.MinReplicas != 1 || sc.MaxReplicas != 4 {
				t.Errorf("trough %d peak %d replicas %d floor %d ceiling %d; want 1, 4, 4, 1, 4", sc.Trough, sc.Peak, sc.Replicas, sc.MinReplicas, sc.MaxReplicas)
			}
			// 12 h at 1 replica, 6 h at 3 (1.5/0.65 → 3), 6 h at 4: 12+18+24 = 54 of 96 GPU-hours.
			if sc.HeldGPUHours != 96 || math.Abs(sc.FreedGPUHours-42) > 1e-9 {
				t.Errorf("held %g freed %g GPU-hours; want 96 and 42", sc.HeldGPUHours, sc.FreedGPUHours)
			}
			if sc.Signal.Kind != tc.wantSignal || sc.Sizing != tc.wantSizing {
				t.Errorf("signal %s sizing %s; want %s, %s", sc.Signal.Kind, sc.Sizing, tc.wantSignal, tc.wantSizing)
			}
		})
	}
}

// Stabilization holds the larger fleet into the next hour, start-up adds
// the next hour's fleet ahead of it: both cost GPU-hours.
func TestStabilizationAndStartupCost(t *testing.T) {
	t.Parallel()
	p := DefaultAutoscalePolicy() // 15 min, 3 min
	got, _, err := Autoscale(snapshotOf(diurnal(false)), p)
	if err != nil {
		t.Fatal(err)
	}
	sc := got[0]
	// Steps up at 8 (1→3), 12 (3→4); down at 18 (4→3), 20 (3→1).
	// Start-up: (2 + 1) × 3/60; stabilization: (1 + 2) × 15/60.
	want := 42 - 3*0.05 - 3*0.25
	if math.Abs(sc.FreedGPUHours-want) > 1e-9 {
		t.Errorf("freed %g GPU-hours, want %g", sc.FreedGPUHours, want)
	}
	if diff := cmp.Diff([]int32{1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 3, 3, 1, 1, 1, 1}, sc.Needed); diff != "" {
		t.Errorf("needed (-want +got):\n%s", diff)
	}
}

func TestFloorAndCeiling(t *testing.T) {
	t.Parallel()
	p := DefaultAutoscalePolicy()
	p.MinReplicas, p.MaxReplicas, p.Stabilization, p.Startup = 2, 3, 0, 0
	got, _, err := Autoscale(snapshotOf(diurnal(false)), p)
	if err != nil {
		t.Fatal(err)
	}
	if sc := got[0]; sc.Trough != 2 || sc.Peak != 3 {
		t.Errorf("trough %d peak %d, want the floor 2 and the ceiling 3", sc.Trough, sc.Peak)
	}
}

// A service without GPU activity series but with request counters is
// sized on its busiest hour per replica, taken to run at the target.
func TestUnmeasuredServiceSizedOnItsPeak(t *testing.T) {
	t.Parallel()
	w := diurnal(true)
	w.GPUActive, w.GPUIdle = nil, nil
	p := DefaultAutoscalePolicy()
	p.Stabilization, p.Startup = 0, 0
	got, skipped, err := Autoscale(snapshotOf(w), p)
	if err != nil || len(got) != 1 || len(skipped) != 0 {
		t.Fatalf("Autoscale: %d scalings, %v skipped, %v", len(got), skipped, err)
	}
	// Busiest hour 26,000 requests on 4 replicas: 6,500 each; the trough's
	// 5,000 need 1, the shoulder's 15,000 need 3.
	if sc := got[0]; sc.Sizing != SizingPeak || sc.Trough != 1 || sc.Peak != 4 || math.Abs(sc.FreedGPUHours-42) > 1e-9 {
		t.Errorf("sizing %q trough %d peak %d freed %g; want the peak sizing, 1, 4, 42", sc.Sizing, sc.Trough, sc.Peak, sc.FreedGPUHours)
	}
}

func TestSkippedAndIgnored(t *testing.T) {
	t.Parallel()
	unmeasured := diurnal(false)
	unmeasured.Workload, unmeasured.GPUActive, unmeasured.GPUIdle = "dev/Deployment/box", nil, nil
	job := diurnal(false)
	job.Workload = "train/Job/run"
	got, skipped, err := Autoscale(snapshotOf(unmeasured, job), DefaultAutoscalePolicy())
	if err != nil || len(got) != 0 {
		t.Fatalf("%d scalings, %v; want none (a Job is not scaled, the Deployment is unmeasured)", len(got), err)
	}
	if len(skipped) != 1 || skipped[0].Workload != "dev/Deployment/box" || !strings.Contains(skipped[0].Reason, "unmeasured") {
		t.Errorf("skipped %+v, want the unmeasured Deployment with its reason", skipped)
	}
}

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*AutoscalePolicy)
		want string // "" = valid
	}{
		{"defaults", func(*AutoscalePolicy) {}, ""},
		{"target activity 0", func(p *AutoscalePolicy) { p.TargetActivity = 0 }, "autoscaling.targetActivity: 0 is outside (0, 1]"},
		{"target activity above 1", func(p *AutoscalePolicy) { p.TargetActivity = 1.5 }, "autoscaling.targetActivity: 1.5 is outside (0, 1]"},
		{"target activity NaN", func(p *AutoscalePolicy) { p.TargetActivity = math.NaN() }, "autoscaling.targetActivity: NaN"},
		{"floor above ceiling", func(p *AutoscalePolicy) { p.MinReplicas, p.MaxReplicas = 5, 2 }, "autoscaling.minReplicas: the floor 5 is above the ceiling autoscaling.maxReplicas 2"},
		{"negative floor", func(p *AutoscalePolicy) { p.MinReplicas = -1 }, "autoscaling.minReplicas: -1 is negative"},
		{"stabilization over an hour", func(p *AutoscalePolicy) { p.Stabilization = 2 * time.Hour }, "autoscaling.stabilization: 2h0m0s is outside"},
		{"negative start-up", func(p *AutoscalePolicy) { p.Startup = -time.Second }, "autoscaling.startup: -1s is outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := DefaultAutoscalePolicy()
			tc.edit(&p)
			err := p.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate: %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
}

// A notebook idle 20 h a day: busy 10:00–14:00, idle the other 20 hours
// (one stretch a day, the night's wrapping into the next morning): each
// day frees 20 GPU-hours; a server is never reclaimed.
func TestReclaimNotebookIdle20HoursADay(t *testing.T) {
	t.Parallel()
	nb := &cluster.WorkloadHours{Workload: "notebooks/StatefulSet/lab"}
	for h := range 72 {
		act := float32(0.01)
		if hd := h % 24; hd >= 10 && hd < 14 {
			act = 0.6
		}
		nb.Pods, nb.GPUHeld, nb.GPUMeasured = append(nb.Pods, 1), append(nb.GPUHeld, 1), append(nb.GPUMeasured, 1)
		nb.GPUActive, nb.GPUIdle = append(nb.GPUActive, act), append(nb.GPUIdle, 0)
	}
	srv := diurnal(true)
	got, err := Reclaim(snapshotOf(nb, srv), DefaultReclaimPolicy())
	if err != nil || len(got) != 1 {
		t.Fatalf("Reclaim: %d idle workloads, %v; want the notebook only", len(got), err)
	}
	// Stretches: 0–9 (10 h), 14–33 (20 h), 38–57 (20 h), 62–71 (10 h).
	if id := got[0]; id.IdleGPUHours != 60 || id.Stretches != 4 || id.Longest != 20 {
		t.Errorf("idle %g GPU-hours in %d stretches (longest %d); want 60 in 4 (20)", id.IdleGPUHours, id.Stretches, id.Longest)
	}
	if err := (ReclaimPolicy{MaxActivity: 0, MinIdleHours: 0}).Validate(); err == nil || !strings.Contains(err.Error(), "reclaim.maxActivity") || !strings.Contains(err.Error(), "reclaim.minIdleHours") {
		t.Errorf("Validate: %v, want both fields named", err)
	}
}

// Quantization: the best-quality native precision whose footprint fits a
// MIG slice; FP8 only where the GPU has it (H100, not A100); no MIG, no
// candidate.
func TestQuantizeFit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model      string
		peakMiB    float64
		wantPrec   string
		wantSmall  bool // a slice smaller than half the GPU
		wantFitted bool
	}{
		{"H100-80GB", 6 * 1024, "FP8", true, true},
		{"A100-80GB", 6 * 1024, "INT8", true, true},
		{"H100-80GB", 72 * 1024, "INT4", false, true},
		{"L4", 6 * 1024, "", false, false}, // no MIG on L4
		{"T4", 6 * 1024, "", false, false},
	} {
		q, ok := fit(tc.model, tc.peakMiB)
		if ok != tc.wantFitted || q.Precision != tc.wantPrec || ok && (q.Fraction >= 1 || (q.Fraction < 0.5) != tc.wantSmall) {
			t.Errorf("%s at %.0f MiB: %+v, %v; want %q (small %v, fitted %v)", tc.model, tc.peakMiB, q, ok, tc.wantPrec, tc.wantSmall, tc.wantFitted)
		}
	}
	if got := Precisions("T4"); slices.Contains(got, "FP8") || !slices.Contains(got, "INT8") {
		t.Errorf("T4 precisions %v: INT8, not FP8", got)
	}
}

// A service whose pods hold DRA devices or HAMi vGPUs is not sized: the
// planner keeps those nodes as they are, and a shared claim holds its GPU
// whatever the replica count.
func TestAutoscaleSkipsDRAAndHAMi(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		gpu  cluster.GPU
		want string
	}{
		{"dra", cluster.GPU{Model: "H100-80GB", Sharing: cluster.Exclusive, Replicas: 1, Allocator: cluster.DRA,
			Units: []cluster.Unit{{ID: "n1/gpu-0", Kind: cluster.WholeGPU, Device: "gpu-0", Claim: "inference/asr"}}}, "DRA ResourceClaims"},
		{"hami", cluster.GPU{Model: "L4", Sharing: cluster.HAMi, Replicas: 10,
			Units: []cluster.Unit{{ID: "n1/gpu0/vgpu-0", Kind: cluster.TimeSlice, CoresPercent: 30, MemoryPercent: 30}}}, "HAMi vGPUs"},
	} {
		s := snapshotOf(diurnal(true))
		s.Nodes = []cluster.Node{{Name: "n1", GPUs: []cluster.GPU{tc.gpu}}}
		s.Pods = []cluster.Pod{{Namespace: "inference", Name: "asr-0", Node: "n1", Owner: cluster.Owner{Kind: "Deployment", Name: "asr"},
			GPUs: []cluster.Holding{{UnitID: tc.gpu.Units[0].ID}}}}
		got, skipped, err := Autoscale(s, DefaultAutoscalePolicy())
		if err != nil || len(got) != 0 {
			t.Fatalf("%s: %d scalings, %v; want none", tc.name, len(got), err)
		}
		if len(skipped) != 1 || skipped[0].Workload != "inference/Deployment/asr" || !strings.Contains(skipped[0].Reason, tc.want) {
			t.Errorf("%s: skipped %+v, want asr naming %s", tc.name, skipped, tc.want)
		}
	}
	// The same service on device-plugin GPUs is sized (TestDiurnalTroughNeedsOneOfFour).
}
