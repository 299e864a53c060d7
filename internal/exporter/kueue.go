package exporter

import "github.com/gpuwise/gpuwise/internal/kueue"

// kueue emits the per-ClusterQueue report (kueue.Report): quota, use and
// borrowing, admitted vs held vs active GPU-seconds, the waste inside
// admitted workloads, and the starved demand with its wait. Unknown
// figures (no admission in the window, no priced pod) have no sample.
func (e emitter) kueue(r *kueue.Result) {
	for i := range r.Queues {
		q := &r.Queues[i]
		e.emit(&KueueQuota, float64(q.NominalGPUs), q.Name)
		e.emit(&KueueUsed, float64(q.UsedGPUs), q.Name)
		e.emit(&KueueBorrowed, float64(q.BorrowedGPUs), q.Name)
		e.emit(&KueueAdmitted, q.AdmittedGPUHours*hour, q.Name)
		e.emit(&KueueHeld, q.HeldGPUHours*hour, q.Name)
		e.emit(&KueueActive, q.ActiveGPUHours*hour, q.Name)
		e.emit(&KueueIdleAdmitted, q.IdleAdmittedGPUHours*hour, q.Name)
		e.ratio(&KueueIdleCost, q.IdlePodsUSD, q.Name)
		e.emit(&KueuePendingWorkloads, float64(q.PendingWorkloads), q.Name)
		e.emit(&KueuePending, float64(q.PendingGPUs), q.Name)
		e.emit(&KueuePendingSeconds, q.PendingGPUHours*hour, q.Name)
		e.ratio(&KueueWaitMean, q.WaitMeanSeconds, q.Name)
		e.ratio(&KueueWaitMax, q.WaitMaxSeconds, q.Name)
		e.emit(&KueueOldestPending, q.OldestPendingSeconds, q.Name)
	}
}
