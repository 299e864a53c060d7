package exporter_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/exporter"
	"github.com/gpuwise/gpuwise/internal/kueue"
)

// Each ClusterQueue of the Kueue report is one series per family, in the
// report's units turned into seconds; unknown figures (no admission in
// the window, no priced pod) have no sample, never 0.
func TestKueueQueues(t *testing.T) {
	t.Parallel()
	idle, mean, top := 12.5, 600.0, 900.0
	f := &exporter.Frame{Kueue: &kueue.Result{WindowHours: 24, Queues: []kueue.Queue{
		{Name: "team-a", NominalGPUs: 8, UsedGPUs: 10, BorrowedGPUs: 2, AdmittedGPUHours: 100, HeldGPUHours: 80, ActiveGPUHours: 30,
			IdleAdmittedGPUHours: 70, IdlePodsUSD: &idle, PendingWorkloads: 1, PendingGPUs: 4, PendingGPUHours: 6,
			Admissions: 2, WaitMeanSeconds: &mean, WaitMaxSeconds: &top, OldestPendingSeconds: 5400},
		{Name: "team-b", NominalGPUs: 4},
	}}}
	want := `
# HELP gpuwise_window_kueue_admitted_gpu_seconds ` + exporter.KueueAdmitted.Help + `
# TYPE gpuwise_window_kueue_admitted_gpu_seconds gauge
gpuwise_window_kueue_admitted_gpu_seconds{cluster_queue="team-a"} 360000
gpuwise_window_kueue_admitted_gpu_seconds{cluster_queue="team-b"} 0
# HELP gpuwise_window_kueue_idle_admitted_gpu_seconds ` + exporter.KueueIdleAdmitted.Help + `
# TYPE gpuwise_window_kueue_idle_admitted_gpu_seconds gauge
gpuwise_window_kueue_idle_admitted_gpu_seconds{cluster_queue="team-a"} 252000
gpuwise_window_kueue_idle_admitted_gpu_seconds{cluster_queue="team-b"} 0
# HELP gpuwise_window_kueue_idle_pods_cost_usd ` + exporter.KueueIdleCost.Help + `
# TYPE gpuwise_window_kueue_idle_pods_cost_usd gauge
gpuwise_window_kueue_idle_pods_cost_usd{cluster_queue="team-a"} 12.5
# HELP gpuwise_window_kueue_pending_gpus ` + exporter.KueuePending.Help + `
# TYPE gpuwise_window_kueue_pending_gpus gauge
gpuwise_window_kueue_pending_gpus{cluster_queue="team-a"} 4
gpuwise_window_kueue_pending_gpus{cluster_queue="team-b"} 0
# HELP gpuwise_window_kueue_quota_gpus ` + exporter.KueueQuota.Help + `
# TYPE gpuwise_window_kueue_quota_gpus gauge
gpuwise_window_kueue_quota_gpus{cluster_queue="team-a"} 8
gpuwise_window_kueue_quota_gpus{cluster_queue="team-b"} 4
# HELP gpuwise_window_kueue_wait_max_seconds ` + exporter.KueueWaitMax.Help + `
# TYPE gpuwise_window_kueue_wait_max_seconds gauge
gpuwise_window_kueue_wait_max_seconds{cluster_queue="team-a"} 900
`
	c := exporter.NewCollector()
	c.Publish(f)
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "gpuwise_window_kueue_admitted_gpu_seconds", "gpuwise_window_kueue_idle_admitted_gpu_seconds",
		"gpuwise_window_kueue_idle_pods_cost_usd", "gpuwise_window_kueue_pending_gpus", "gpuwise_window_kueue_quota_gpus", "gpuwise_window_kueue_wait_max_seconds"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(c, "gpuwise_window_kueue_used_gpus", "gpuwise_window_kueue_borrowed_gpus", "gpuwise_window_kueue_held_gpu_seconds",
		"gpuwise_window_kueue_active_gpu_seconds", "gpuwise_window_kueue_pending_workloads", "gpuwise_window_kueue_pending_gpu_seconds",
		"gpuwise_window_kueue_wait_mean_seconds", "gpuwise_window_kueue_oldest_pending_seconds"); n != 7*2+1 {
		t.Errorf("%d series in the other Kueue families, want 15 (two queues each, wait_mean only for team-a)", n)
	}
	// Without Kueue, no Kueue series at all.
	c.Publish(&exporter.Frame{Window: cluster.Window{}})
	if n := testutil.CollectAndCount(c, "gpuwise_window_kueue_quota_gpus"); n != 0 {
		t.Errorf("%d Kueue series without Kueue", n)
	}
}
