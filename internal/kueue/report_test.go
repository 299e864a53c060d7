package kueue

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

var t0 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

func at(h float64) time.Time { return t0.Add(time.Duration(h * float64(time.Hour))) }

func f(v float64) *float64 { return &v }

// handSnapshot: a 10-hour window, two ClusterQueues in one cohort, four
// GPU workloads (see TestReportHandComputed for the arithmetic).
func handSnapshot(t *testing.T) *cluster.Prepared {
	t.Helper()
	gpu := func(n int64) map[string]int64 { return map[string]int64{"nvidia.com/gpu": n} }
	s := &cluster.Snapshot{Window: cluster.Window{Start: at(0), End: at(10)}, Nodes: []cluster.Node{}, Pods: []cluster.Pod{},
		Kueue: &cluster.KueueInfo{
			ClusterQueues: []cluster.ClusterQueue{
				{Name: "team-a", Cohort: "gpus", Quotas: []cluster.QueueQuota{{Flavor: "a100", Resource: "nvidia.com/gpu", Nominal: 8, Used: 6}}},
				{Name: "team-b", Cohort: "gpus", Quotas: []cluster.QueueQuota{{Flavor: "a100", Resource: "nvidia.com/gpu", Nominal: 4, Used: 6, Borrowed: 2}}},
			},
			LocalQueues: []cluster.LocalQueue{{Namespace: "a", Name: "batch", ClusterQueue: "team-a"}, {Namespace: "b", Name: "batch", ClusterQueue: "team-b"}},
			Workloads: []cluster.QueuedWorkload{
				{Namespace: "a", Name: "train", ClusterQueue: "team-a", Created: at(-1), Admitted: at(1), Finished: at(6), GPUs: gpu(4), Pods: []string{"a/train-0"}},
				{Namespace: "a", Name: "sweep", ClusterQueue: "team-a", Created: at(8), GPUs: gpu(2)},
				{Namespace: "b", Name: "infer", ClusterQueue: "team-b", Created: at(-5), Admitted: at(-4), GPUs: gpu(2), Pods: []string{"b/x", "b/y"}},
				{Namespace: "b", Name: "late", ClusterQueue: "team-b", Created: at(2), Admitted: at(5), Finished: at(9), GPUs: gpu(1)},
			},
		}}
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportHandComputed checks every figure against arithmetic done by
// hand:
//
//	a/train  4 GPUs, created -1h, admitted 1h (wait 2h), finished 6h:
//	         admitted 4×5 = 20, pending inside the window 4×1 = 4;
//	         its pod held 20, active 8, unmeasured 2: idle 20-8-2 = 10
//	a/sweep  2 GPUs, created 8h, waiting at the end: pending 2×2 = 4,
//	         oldest pending 2h
//	b/infer  2 GPUs, admitted -4h (before the window: no wait counted),
//	         running: admitted 2×10 = 20; pods held 16+4, active 12: idle 8;
//	         b/y is unpriced (its $ left out, named in a note)
//	b/late   1 GPU, created 2h, admitted 5h (wait 3h), finished 9h:
//	         admitted 4, pending 3, no pod: idle 4
func TestReportHandComputed(t *testing.T) {
	t.Parallel()
	pods := map[string]PodCost{
		"a/train-0": {AllocatedGPUHours: 20, ActiveGPUHours: 8, UnmeasuredGPUHours: 2, IdleUSD: 30, Priced: true},
		"b/x":       {AllocatedGPUHours: 16, ActiveGPUHours: 12, IdleUSD: 10, Priced: true},
		"b/y":       {AllocatedGPUHours: 4, IdleUSD: 99},
	}
	got := Report(handSnapshot(t), pods)
	want := &Result{WindowHours: 10,
		Queues: []Queue{
			{Name: "team-a", Cohort: "gpus", LocalQueues: []string{"a/batch"}, NominalGPUs: 8, UsedGPUs: 6, Workloads: 2,
				AdmittedGPUHours: 20, MeanAdmittedGPUs: 2, HeldGPUHours: 20, ActiveGPUHours: 8, UnmeasuredGPUHours: 2,
				IdleAdmittedGPUHours: 10, IdlePodsUSD: f(30), PendingWorkloads: 1, PendingGPUs: 2, PendingGPUHours: 8,
				Admissions: 1, WaitMeanSeconds: f(7200), WaitMaxSeconds: f(7200), OldestPendingSeconds: 7200},
			{Name: "team-b", Cohort: "gpus", LocalQueues: []string{"b/batch"}, NominalGPUs: 4, UsedGPUs: 6, BorrowedGPUs: 2, Workloads: 2,
				AdmittedGPUHours: 24, MeanAdmittedGPUs: 2.4, HeldGPUHours: 20, ActiveGPUHours: 12,
				IdleAdmittedGPUHours: 12, IdlePodsUSD: f(10), PendingGPUHours: 3,
				Admissions: 1, WaitMeanSeconds: f(10800), WaitMaxSeconds: f(10800)},
		},
		Total: Queue{Name: "total", NominalGPUs: 12, UsedGPUs: 12, BorrowedGPUs: 2, Workloads: 4,
			AdmittedGPUHours: 44, MeanAdmittedGPUs: 4.4, HeldGPUHours: 40, ActiveGPUHours: 20, UnmeasuredGPUHours: 2,
			IdleAdmittedGPUHours: 22, IdlePodsUSD: f(40), PendingWorkloads: 1, PendingGPUs: 2, PendingGPUHours: 11,
			Admissions: 2, WaitMeanSeconds: f(9000), WaitMaxSeconds: f(10800), OldestPendingSeconds: 7200},
		Notes: []string{
			"1 pods of admitted workloads run on unpriced nodes: their idle dollars are not in the queues' idle $",
			"admission times are each workload's last admission: time admitted before an eviction and requeue is not counted",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per-queue report (-want +got):\n%s", diff)
	}
	if s := got.Sorted(); s[0].Name != "team-b" {
		t.Errorf("worst queue first: got %s, want team-b (12 idle admitted GPU-hours)", s[0].Name)
	}
}

func TestReportWithoutKueueIsNil(t *testing.T) {
	t.Parallel()
	p, err := cluster.Prepare(&cluster.Snapshot{Window: cluster.Window{Start: at(0), End: at(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if r := Report(p, nil); r != nil {
		t.Errorf("no Kueue section: got %+v, want nil", r)
	}
}

// A workload naming a ClusterQueue the snapshot lacks is reported under
// its own row and named in a note, never dropped.
func TestReportUnknownQueue(t *testing.T) {
	t.Parallel()
	v := handSnapshot(t).View()
	v.Kueue.Workloads = append(v.Kueue.Workloads, cluster.QueuedWorkload{Namespace: "c", Name: "lost", Created: at(0), GPUs: map[string]int64{"nvidia.com/gpu": 1}})
	p, err := cluster.Prepare(v)
	if err != nil {
		t.Fatal(err)
	}
	r := Report(p, nil)
	last := r.Queues[len(r.Queues)-1]
	if last.Name != unknownQueue || last.PendingGPUs != 1 || last.PendingGPUHours != 10 {
		t.Errorf("unknown queue row: %+v", last)
	}
	if r.Total.PendingGPUs != 3 {
		t.Errorf("total pending GPUs %d, want 3", r.Total.PendingGPUs)
	}
}
