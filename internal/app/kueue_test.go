package app

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
)

// kueueFixture: the fixture's training Job (4 A100s, 60% active, all
// window) admitted by Kueue an hour in, and a sweep still pending.
func kueueFixture(s *cluster.Snapshot) {
	w := s.Window
	s.Kueue = &cluster.KueueInfo{
		ClusterQueues: []cluster.ClusterQueue{{Name: "team-ml", Quotas: []cluster.QueueQuota{{Flavor: "a100", Resource: "nvidia.com/gpu", Nominal: 8, Used: 4}}}},
		LocalQueues:   []cluster.LocalQueue{{Namespace: "ml", Name: "batch", ClusterQueue: "team-ml"}},
		Workloads: []cluster.QueuedWorkload{
			{Namespace: "ml", Name: "job-train", Queue: "batch", ClusterQueue: "team-ml", Owner: cluster.Owner{Kind: "Job", Name: "train"},
				Created: w.Start, Admitted: w.Start, GPUs: map[string]int64{"nvidia.com/gpu": 4}, Pods: []string{"ml/train"}},
			{Namespace: "ml", Name: "job-sweep", Queue: "batch", ClusterQueue: "team-ml", Created: w.End.Add(-2 * 3600e9), GPUs: map[string]int64{"nvidia.com/gpu": 2}},
		},
	}
}

// The per-queue report's pod figures are the cost report's own: the
// admitted job's held and active GPU-hours and idle dollars equal its
// row in the report (--by pod), to the cent.
func TestReportKueueQueuesFromTheAllocation(t *testing.T) {
	t.Parallel()
	req := DefaultReportRequest()
	req.Report.By = "pod"
	req.Source = Source{File: fixtureFile(t, kueueFixture)}
	res, err := testApp().Report(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kueue == nil || len(res.Kueue.Queues) != 1 {
		t.Fatalf("kueue %+v, want one queue", res.Kueue)
	}
	q := res.Kueue.Queues[0]
	var train cost.Row
	for _, r := range res.Report.Rows {
		if r.Key == "ml/train" {
			train = r
		}
	}
	if !near(q.HeldGPUHours, train.GPUHours.Allocated) || !near(q.ActiveGPUHours, train.GPUHours.Active) ||
		q.IdlePodsUSD == nil || math.Abs(*q.IdlePodsUSD-train.GPUCost.AllocatedIdle) > 0.005 {
		t.Errorf("queue held %v active %v idle $%v; the cost engine's line: %v, %v, $%v", q.HeldGPUHours, q.ActiveGPUHours, q.IdlePodsUSD,
			train.GPUHours.Allocated, train.GPUHours.Active, train.GPUCost.AllocatedIdle)
	}
	if want := 4.0 * fixtureHours; !near(q.AdmittedGPUHours, want) || !near(q.IdleAdmittedGPUHours, want-train.GPUHours.Active-train.GPUHours.Unmeasured) {
		t.Errorf("admitted %v, idle admitted %v; want %v and admitted - active", q.AdmittedGPUHours, q.IdleAdmittedGPUHours, want)
	}
	if q.PendingGPUs != 2 || !near(q.PendingGPUHours, 4) || q.OldestPendingSeconds != 7200 {
		t.Errorf("pending %d GPUs, %v GPU-h, oldest %vs; want 2, 4, 7200", q.PendingGPUs, q.PendingGPUHours, q.OldestPendingSeconds)
	}
	// Without Kueue there is no section.
	req.Source = Source{File: fixtureFile(t, nil)}
	if res, err := testApp().Report(context.Background(), req); err != nil || res.Kueue != nil {
		t.Errorf("no Kueue: section %+v, err %v", res.Kueue, err)
	}
}

// generate kueue on the fixture: the training Job's team gets a queue, the
// notebook (a StatefulSet in dev) and the web API none; the cohort quotes
// the ledger's queue lever.
func TestGenerateKueueUseCase(t *testing.T) {
	t.Parallel()
	req := DefaultKueueRequest()
	req.Source = Source{File: fixtureFile(t, nil)}
	res, err := testApp().GenerateKueue(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sizing.Teams) != 1 || res.Sizing.Teams[0].Namespace != "ml" || !res.Saving.Ran {
		t.Fatalf("teams %+v, saving %+v: want ml alone, the ledger's queue lever run", res.Sizing.Teams, res.Saving)
	}
	var paths []string
	for _, f := range res.Files {
		paths = append(paths, f.Path)
	}
	if got := strings.Join(paths, " "); !strings.Contains(got, "kueue/clusterqueue-ml.yaml") || !strings.Contains(got, "kueue/localqueue-ml.yaml") {
		t.Errorf("files %s", got)
	}
	req.Cohort = ""
	if _, err := testApp().GenerateKueue(context.Background(), req); err == nil || KindOf(err) != Usage {
		t.Errorf("an empty cohort: %v, want a usage error", err)
	}
}
