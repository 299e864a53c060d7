package cost

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

func noteWith(r *Report, substr string) (Note, bool) {
	for _, n := range r.Notes {
		if strings.Contains(n.Text, substr) {
			return n, true
		}
	}
	return Note{}, false
}

// A pod is never dropped or cut silently: time it spent where its node did
// not exist is left out, and a note names it. The good twin (a pod inside
// its node's life) gets no such note.
func TestPodsOutsideTheirNodeAreNoted(t *testing.T) {
	tests := []struct {
		name          string
		node          cluster.Node
		pod           cluster.Pod
		wantAllocated float64
		wantNote      string // "" = no node-life note at all
		wantSeverity  string
	}{
		{"node deleted before the window", ct.Node("gone").GPUs(1, "H100-80GB").Life(ct.At(-48), ct.At(-24)).Obj(),
			ct.Pod("ml", "ghost").On("gone").Holds("gone/gpu0", 0.5, 10*hour).Obj(),
			0, "1 pod(s) ran in the window only while their node did not exist", "warning"},
		{"pod outliving its node", ct.Node("spot").GPUs(1, "H100-80GB").Life(time.Time{}, ct.At(4)).Obj(),
			ct.Pod("ml", "train").On("spot").Holds("spot/gpu0", 0.5, 4*hour).Obj(),
			4, "1 pod(s) ran beyond their node's lifetime; only their time on the node is counted: ml/train on spot (node deleted 2026-01-01T04:00:00Z)", "info"},
		{"pod inside its node's life", ct.Node("spot").GPUs(1, "H100-80GB").Life(time.Time{}, ct.At(4)).Obj(),
			ct.Pod("ml", "train").On("spot").Life(ct.At(1), ct.At(3)).Holds("spot/gpu0", 0.5, 2*hour).Obj(),
			2, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report(t, &cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{tt.node}, Pods: []cluster.Pod{tt.pod}}, nil)
			if got := r.Totals.GPUHours.Allocated; math.Abs(got-tt.wantAllocated) > 1e-9 {
				t.Errorf("allocated GPU-hours = %v, want %v", got, tt.wantAllocated)
			}
			if tt.wantNote == "" {
				for _, substr := range []string{"node did not exist", "beyond their node"} {
					if n, ok := noteWith(r, substr); ok {
						t.Errorf("unexpected note %q", n.Text)
					}
				}
				return
			}
			n, ok := noteWith(r, tt.wantNote)
			if !ok || n.Severity != tt.wantSeverity {
				t.Errorf("notes %v, want a %s containing %q", r.Notes, tt.wantSeverity, tt.wantNote)
			}
		})
	}
}

func TestEmptySnapshotIsNotZeroCost(t *testing.T) {
	empty := report(t, &cluster.Snapshot{Window: ct.Window(10)}, nil)
	if n, ok := noteWith(empty, "nothing to price, so $0 here means no data"); !ok || n.Severity != "warning" {
		t.Errorf("empty snapshot notes %v, want a warning that $0 means no data", empty.Notes)
	}
	full := report(t, &cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()}}, nil)
	if n, ok := noteWith(full, "nothing to price"); ok {
		t.Errorf("a snapshot with a GPU node got %q", n.Text)
	}
}

// The unmeasured note must read sensibly for a live report a minute into
// its window (it once said "0.0 of 0.0 allocated GPU-hours (100.0%)").
func TestUnmeasuredNoteWording(t *testing.T) {
	tests := []struct {
		name  string
		pods  []cluster.Pod
		want  string
		never string
	}{
		{"a few GPU-seconds, none measured", []cluster.Pod{
			ct.Pod("ml", "new").On("n1").Life(ct.At(9.999), time.Time{}).Holds("n1/gpu0", -1, 0).Obj()},
			"no allocated GPU-hour has usage data (0.0010 GPU-hours held, all unmeasured)", "0.0 of 0.0"},
		{"all of a week unmeasured", []cluster.Pod{ct.Pod("ml", "dark").On("n1").Holds("n1/gpu0", -1, 0).Obj()},
			"no allocated GPU-hour has usage data (10.0 GPU-hours held, all unmeasured)", "(100.0%)"},
		{"half unmeasured", []cluster.Pod{
			ct.Pod("ml", "dark").On("n1").Holds("n1/gpu0", -1, 0).Obj(),
			ct.Pod("ml", "lit").On("n1").Holds("n1/gpu1", 0.5, 10*hour).Obj()},
			"10.0 of 20.0 allocated GPU-hours (50.0%) have no usage data", "no allocated GPU-hour"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{ct.Node("n1").GPUs(2, "H100-80GB").Obj()}, Pods: tt.pods}
			r := report(t, s, nil)
			if _, ok := noteWith(r, tt.want); !ok {
				t.Errorf("notes %v, want %q", r.Notes, tt.want)
			}
			if n, ok := noteWith(r, tt.never); ok {
				t.Errorf("note %q contains %q", n.Text, tt.never)
			}
		})
	}
}

func TestGPUHoursText(t *testing.T) {
	for v, want := range map[float64]string{0: "0.0", 0.001: "0.0010", 0.05: "0.050", 0.1: "0.1", 1344: "1344.0", 1e-12: "0.000000000"} {
		if got := gpuHours(v); got != want {
			t.Errorf("gpuHours(%v) = %q, want %q", v, got, want)
		}
	}
}
