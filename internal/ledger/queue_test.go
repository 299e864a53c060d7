package ledger

import (
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// batchWorker: a Deployment of one GPU worker in "batch" on its own H100
// node ($4/h) all week, running work 10:00–14:00 and idle (1%) between
// runs the other 20 hours a day — the notebook fixture's day, in a batch
// namespace. Queued through Kueue, its runs hold the GPU 4 h a day and
// the node runs 4 h plus 10 minutes either side: the same money as the
// notebook's reclaim, 7 × (4 + 1/3) h a week × 730 ÷ 168 at $4/h kept.
func batchWorker(t *testing.T, ns, kind string) *cluster.Prepared {
	t.Helper()
	hours := weekHours
	nodes := []cluster.Node{node("h1", h100x1, 1, "H100-80GB", 8, 64)}
	pods := []cluster.Pod{clustertest.Pod(ns, "worker-0").Owner(kind, "worker").On("h1").Requests(1000, 8).
		Holds("h1/gpu0", 0.2, float64(hours)*3600).Obj()}
	wh := cluster.WorkloadHours{Workload: ns + "/" + kind + "/worker"}
	for h := range hours {
		act := float32(0.01)
		if hd := h % 24; hd >= 10 && hd < 14 {
			act = 0.9
		}
		wh.Pods, wh.GPUHeld, wh.GPUMeasured = append(wh.Pods, 1), append(wh.GPUHeld, 1), append(wh.GPUMeasured, 1)
		wh.GPUActive, wh.GPUIdle = append(wh.GPUActive, act), append(wh.GPUIdle, 0)
	}
	return prepareTest(t, &cluster.Snapshot{Window: clustertest.Window(hours), Source: "fixture", Nodes: nodes, Pods: pods,
		Hourly: &cluster.Hourly{IdleThreshold: cluster.DefaultIdleThreshold, Workloads: []cluster.WorkloadHours{wh}}})
}

func TestQueueBatchWorkerIdleBetweenRuns(t *testing.T) {
	t.Parallel()
	runs := 7 * (4 + 1.0/3) * HoursPerMonth / weekHours
	want := CentsOf(4*HoursPerMonth) - CentsOf(4*runs)
	l := build(t, batchWorker(t, "batch", "Deployment"), options(LeverQueue))
	if l.Saving() != want || len(l.Actions) != 1 || l.Actions[0].Kind != lever.KindQueue || len(l.Actions[0].Items) != 1 {
		t.Fatalf("queue saves %s in %d action(s), want %s in one queue-batch action with the worker", l.Saving(), len(l.Actions), want)
	}
	a := l.Actions[0]
	if a.Items[0].Target != "batch/Deployment/worker" || len(a.Artefacts) != 1 || a.Artefacts[0].Command != "gpuwise generate kueue -d out/" {
		t.Errorf("action %q: item %q, artefacts %+v", a.Title, a.Items[0].Target, a.Artefacts)
	}
	if err := l.Reconcile(); err != nil {
		t.Errorf("reconcile: %v", err)
	}
	// After the autoscale and reclaim levers the money is still queue's:
	// the worker holds one replica (its floor) and is not a notebook.
	all := build(t, batchWorker(t, "batch", "Deployment"), options(LeverAutoscale, LeverReclaim, LeverQueue))
	if all.Saving() != want {
		t.Errorf("autoscale + reclaim + queue save %s, want %s", all.Saving(), want)
	}
}

// What the lever leaves alone: a worker in a dev namespace (reclaim's), a
// worker outside the batch namespaces, a Job (its run ends on its own),
// and a worker Kueue already admits (queued: its idle is the per-queue
// report's).
func TestQueueLeavesOthersAlone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		s        *cluster.Prepared
		wantNone bool
	}{
		{"dev namespace", batchWorker(t, "dev", "Deployment"), true},
		{"serving namespace", batchWorker(t, "serving", "Deployment"), true},
		{"a Job", batchWorker(t, "batch", "Job"), true},
		{"a training StatefulSet", batchWorker(t, "ml-training", "StatefulSet"), false},
	} {
		l := build(t, c.s, options(LeverQueue))
		if none := l.Saving() == 0; none != c.wantNone {
			t.Errorf("%s: queue saves %s", c.name, l.Saving())
		}
	}
	v := batchWorker(t, "batch", "Deployment").View()
	v.Kueue = &cluster.KueueInfo{Workloads: []cluster.QueuedWorkload{{Namespace: "batch", Name: "w", Created: clustertest.At(0),
		Admitted: clustertest.At(0), GPUs: map[string]int64{"nvidia.com/gpu": 1}, Pods: []string{"batch/worker-0"}}}}
	if l := build(t, prepareTest(t, v), options(LeverQueue)); l.Saving() != 0 {
		t.Errorf("a Kueue-admitted worker: queue saves %s, want 0 (it is queued already)", l.Saving())
	}
}
