package cluster_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

func TestInterruptions(t *testing.T) {
	t.Parallel()
	spotGone := ct.Node("spot1").Instance("p5.48xlarge", cluster.Spot).Life(time.Time{}, ct.At(5)).GPUs(1, "H100-80GB").Obj()
	scaledDown := ct.Node("spot2").Instance("p5.48xlarge", cluster.Spot).Life(time.Time{}, ct.At(6)).GPUs(1, "H100-80GB").Obj()
	scaledDown.EndReason = cluster.NodeScaledDown
	odGone := ct.Node("od1").Life(time.Time{}, ct.At(4)).GPUs(1, "H100-80GB").Obj()
	evicted := ct.Pod("ml", "evicted").On("od1").Owner("Job", "train").Life(ct.At(0), ct.At(3)).Obj()
	evicted.EndReason = "Evicted"
	lost := ct.Pod("ml", "lost").On("spot1").Owner("Job", "spot-train").Life(ct.At(0), ct.At(5).Add(-time.Minute)).Obj()
	lost.Phase = "Failed"
	done := ct.Pod("ml", "done").On("spot1").Owner("Job", "finished").Life(ct.At(0), ct.At(5)).Obj()
	done.Phase = "Succeeded"
	early := ct.Pod("ml", "early").On("spot1").Owner("Job", "early").Life(ct.At(0), ct.At(5).Add(-5*time.Minute)).Obj()
	early.Phase = "" // phase unknown (Prometheus): timing decides
	late := ct.Pod("ml", "late").On("spot1").Owner("Job", "late").Life(ct.At(0), ct.At(5).Add(40*time.Minute)).Obj()
	drained := ct.Pod("ml", "drained").On("spot2").Owner("Job", "drained").Life(ct.At(0), ct.At(6)).Obj()
	agent := ct.Pod("logging", "fluent-bit-x").On("spot1").Owner("DaemonSet", "fluent-bit").Life(ct.At(0), ct.At(5)).Obj()
	s := &cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{spotGone, scaledDown, odGone},
		Pods: []cluster.Pod{evicted, lost, done, early, late, drained, agent}}
	want := []cluster.Interruption{
		{At: ct.At(3), Kind: "pod", Name: "ml/evicted", Workload: "ml/Job/train", Reason: "Evicted"},
		{At: ct.At(5).Add(-time.Minute), Kind: "pod", Name: "ml/lost", Workload: "ml/Job/spot-train", Reason: "lost with node spot1"},
		{At: ct.At(5), Kind: "node", Name: "spot1", Reason: "spot node went away (reason not recorded)"},
		{At: ct.At(5).Add(40 * time.Minute), Kind: "pod", Name: "ml/late", Workload: "ml/Job/late", Reason: "lost with node spot1"},
	}
	if diff := cmp.Diff(want, cluster.Interruptions(s)); diff != "" {
		t.Errorf("Interruptions (-want +got):\n%s", diff)
	}
	if got := cluster.PerWeek(3, s.Window); got != 3*168.0/10 {
		t.Errorf("PerWeek(3) over 10h = %g", got)
	}
}

func TestCheckpointHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		want        int64
		wantErr     string
	}{
		{"none", nil, nil, 0, ""},
		{"label", map[string]string{cluster.CheckpointHint: "30m"}, nil, 1800, ""},
		{"annotation wins", map[string]string{cluster.CheckpointHint: "30m"}, map[string]string{cluster.CheckpointHint: "2h"}, 7200, ""},
		{"not a duration", map[string]string{cluster.CheckpointHint: "hourly"}, nil, 0, "not a duration"},
		{"too long", nil, map[string]string{cluster.CheckpointHint: "200h"}, 0, "outside 1s to 168h"},
		{"zero", nil, map[string]string{cluster.CheckpointHint: "0s"}, 0, "outside 1s to 168h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cluster.CheckpointFrom(tt.labels, tt.annotations)
			if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("CheckpointFrom = %d, %v; want %d, error %q", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
