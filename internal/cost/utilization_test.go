package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// Utilization of provisioned is active over the provisioned hours whose
// state is known. Hand-computed on one 3-GPU node over 10 h (30
// provisioned GPU-hours).
func TestUtilizationOfProvisioned(t *testing.T) {
	lit := func(unit string) cluster.Pod {
		return ct.Pod("ml", "lit-"+unit).On("n1").Holds("n1/"+unit, 0.5, 10*hour).Obj()
	}
	dark := func(unit string) cluster.Pod {
		return ct.Pod("ml", "dark-"+unit).On("n1").Holds("n1/"+unit, -1, 0).Obj()
	}
	tests := []struct {
		name string
		pods []cluster.Pod
		want *float64 // nil: n/a
	}{
		// 2 GPUs held unmeasured, 1 free: no allocated hour measured → n/a
		// (it was 0.0%).
		{"nothing measured", []cluster.Pod{dark("gpu0"), dark("gpu1")}, nil},
		// active 5 over 30 − 10 unmeasured = 0.25 (it was 5/30 = 0.167,
		// counting the unmeasured GPU as idle).
		{"one measured, one unmeasured, one free", []cluster.Pod{lit("gpu0"), dark("gpu1")}, ptr(5.0 / 20)},
		// everything measured: active 10 / 30.
		{"all held time measured", []cluster.Pod{lit("gpu0"), lit("gpu1")}, ptr(10.0 / 30)},
		// nobody held a GPU: 0 of 30 is known, 0%.
		{"nothing held", nil, ptr(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{ct.Node("n1").GPUs(3, "H100-80GB").Obj()}, Pods: tt.pods}
			got := report(t, s, nil).Totals.GPUUtilizationOfProvisioned
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("utilization of provisioned = %v, want n/a (nil)", *got)
			case tt.want != nil && (got == nil || math.Abs(*got-*tt.want) > 1e-12):
				t.Errorf("utilization of provisioned = %v, want %v", got, *tt.want)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }

// The idle threshold is answered exactly or refused: GPU activity lives in
// whole-percent buckets, so 0.095 cannot be told apart from 0.09 or 0.10.
func TestIdleThresholdIsExactOrRefused(t *testing.T) {
	for _, bad := range []float64{0.095, 0.1001, math.NaN(), -0.01, 1.5} {
		o := DefaultOptions()
		o.IdleThreshold = bad
		if err := o.Validate(); err == nil {
			t.Errorf("threshold %v accepted", bad)
		}
	}
	o := DefaultOptions()
	o.IdleThreshold = 0.095
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "below 0.09 or below 0.1 exactly, but not below 0.095") {
		t.Errorf("error %v does not name the thresholds that work", err)
	}
	// A GPU at 9.5% for 10 h: idle below 10%, busy at 9%. The JSON echo,
	// the note and the hours agree.
	for _, tt := range []struct {
		threshold float64
		wantIdle  float64
		wantNote  string
	}{{0.10, 10, "below 10% activity"}, {0.09, 0, "below 9% activity"}, {0.07, 0, "below 7% activity"}, {0.3, 10, "below 30% activity"}} {
		s := &cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()},
			Pods: []cluster.Pod{ct.Pod("ml", "a").On("n1").Holds("n1/gpu0", 0.095, 10*hour).Obj()}}
		r := report(t, s, func(o *settings) { o.IdleThreshold = tt.threshold })
		if r.IdleThreshold != tt.threshold || r.Totals.GPUHours.Idle != tt.wantIdle {
			t.Errorf("threshold %v: echo %v, idle %v GPU-hours; want idle %v", tt.threshold, r.IdleThreshold, r.Totals.GPUHours.Idle, tt.wantIdle)
		}
		if _, ok := noteWith(r, tt.wantNote); !ok {
			t.Errorf("threshold %v: notes %v, want %q", tt.threshold, r.Notes, tt.wantNote)
		}
	}
}
