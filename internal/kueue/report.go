package kueue

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// PodCost is what the cost engine allocated to one pod over the window:
// its GPU-hours (fraction-weighted, as every report counts them) and its
// GPU dollars.
type PodCost struct {
	AllocatedGPUHours  float64
	ActiveGPUHours     float64
	UnmeasuredGPUHours float64
	// IdleUSD is the pod's allocated-but-idle GPU dollars; Priced is
	// false when its node was not priced (its dollars are unknown).
	IdleUSD float64
	Priced  bool
}

// Result is the per-queue report.
type Result struct {
	// WindowHours is the window's length in hours.
	WindowHours float64 `json:"window_hours"`
	Queues      []Queue `json:"queues"`
	// Total sums every queue (quotas, GPU-hours, demand; waits over every
	// workload).
	Total Queue `json:"total"`
	// Notes say what the figures cannot see.
	Notes []string `json:"notes,omitempty"`
}

// Queue is one ClusterQueue's figures. GPU quotas and asks count units
// of the GPU resources (a MIG instance is one unit, as Kueue counts it);
// held, active and unmeasured GPU-hours are the cost engine's (a unit
// weighted by its fraction of the physical GPU).
type Queue struct {
	Name        string   `json:"name"`
	Cohort      string   `json:"cohort,omitempty"`
	LocalQueues []string `json:"local_queues,omitempty"`
	// NominalGPUs, UsedGPUs and BorrowedGPUs are the ClusterQueue's GPU
	// quota and its status usage when the snapshot was read.
	NominalGPUs  int64 `json:"nominal_gpus"`
	UsedGPUs     int64 `json:"used_gpus"`
	BorrowedGPUs int64 `json:"borrowed_gpus"`
	// Workloads counts the GPU workloads of the queue the snapshot holds.
	Workloads int `json:"workloads"`
	// AdmittedGPUHours: Σ over workloads of GPU units × hours admitted
	// (from admission to finish or the window's end) inside the window;
	// MeanAdmittedGPUs is that over the window's hours.
	AdmittedGPUHours float64 `json:"admitted_gpu_hours"`
	MeanAdmittedGPUs float64 `json:"mean_admitted_gpus"`
	// HeldGPUHours, ActiveGPUHours and UnmeasuredGPUHours are the cost
	// engine's figures for the admitted workloads' pods.
	HeldGPUHours       float64 `json:"held_gpu_hours"`
	ActiveGPUHours     float64 `json:"active_gpu_hours"`
	UnmeasuredGPUHours float64 `json:"unmeasured_gpu_hours"`
	// IdleAdmittedGPUHours is the waste: admitted − active − unmeasured
	// GPU-hours (quota reserved while no pod ran, plus pods idle), at
	// least 0.
	IdleAdmittedGPUHours float64 `json:"idle_admitted_gpu_hours"`
	// IdlePodsUSD is the cost engine's allocated-but-idle GPU dollars of
	// those pods; nil when none of them was priced.
	IdlePodsUSD *float64 `json:"idle_pods_usd"`
	// PendingWorkloads and PendingGPUs are the GPU workloads waiting at
	// the window's end and the GPU units they ask for; PendingGPUHours the
	// GPU units × hours workloads waited inside the window (the starved
	// demand).
	PendingWorkloads int     `json:"pending_workloads"`
	PendingGPUs      int64   `json:"pending_gpus"`
	PendingGPUHours  float64 `json:"pending_gpu_hours"`
	// WaitMeanSeconds and WaitMaxSeconds are the queue wait (creation to
	// admission) of the workloads admitted inside the window; nil when
	// none was. OldestPendingSeconds is the longest a workload still
	// waiting at the window's end has waited (0: none waits).
	Admissions           int      `json:"admissions"`
	WaitMeanSeconds      *float64 `json:"wait_mean_seconds"`
	WaitMaxSeconds       *float64 `json:"wait_max_seconds"`
	OldestPendingSeconds float64  `json:"oldest_pending_seconds"`
}

// unknownQueue names the workloads whose ClusterQueue is not known (a
// LocalQueue the snapshot does not have).
const unknownQueue = "(no ClusterQueue)"

// Report computes the per-queue figures of s's Kueue section, the pods'
// figures taken from pods (keyed "namespace/name"); nil without Kueue.
func Report(s *cluster.Prepared, pods map[string]PodCost) *Result {
	k := s.Kueue()
	if k == nil {
		return nil
	}
	w := s.Window()
	r := &Result{WindowHours: w.End.Sub(w.Start).Hours()}
	at := map[string]int{}
	for _, q := range k.ClusterQueues {
		at[q.Name] = len(r.Queues)
		out := Queue{Name: q.Name, Cohort: q.Cohort}
		for _, qq := range q.Quotas {
			out.NominalGPUs += qq.Nominal
			out.UsedGPUs += qq.Used
			out.BorrowedGPUs += qq.Borrowed
		}
		r.Queues = append(r.Queues, out)
	}
	for _, lq := range k.LocalQueues {
		if i, ok := at[lq.ClusterQueue]; ok {
			r.Queues[i].LocalQueues = append(r.Queues[i].LocalQueues, lq.Key())
		}
	}
	waits := make([][]float64, len(r.Queues))
	var unpriced int
	for i := range k.Workloads {
		wl := &k.Workloads[i]
		qi, ok := at[wl.ClusterQueue]
		if !ok {
			qi = len(r.Queues)
			at[wl.ClusterQueue] = qi
			name := wl.ClusterQueue
			if name == "" {
				name = unknownQueue
			}
			r.Queues = append(r.Queues, Queue{Name: name})
			waits = append(waits, nil)
			r.Notes = append(r.Notes, fmt.Sprintf("workload %s names ClusterQueue %q, which the snapshot does not have; its figures are under %q", wl.Key(), wl.ClusterQueue, name))
		}
		q := &r.Queues[qi]
		if wait, ok := q.add(wl, w, pods, &unpriced); ok {
			waits[qi] = append(waits[qi], wait)
		}
	}
	var all []float64
	for i := range r.Queues {
		r.Queues[i].waits(waits[i])
		r.Queues[i].MeanAdmittedGPUs = r.Queues[i].AdmittedGPUHours / r.WindowHours
		all = append(all, waits[i]...)
		r.Total.sum(&r.Queues[i])
	}
	r.Total.Name = "total"
	r.Total.MeanAdmittedGPUs = r.Total.AdmittedGPUHours / r.WindowHours
	r.Total.waits(all)
	if unpriced > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d pods of admitted workloads run on unpriced nodes: their idle dollars are not in the queues' idle $", unpriced))
	}
	r.Notes = append(r.Notes, "admission times are each workload's last admission: time admitted before an eviction and requeue is not counted")
	return r
}

// add counts one workload; it returns its queue wait when it was
// admitted inside the window.
func (q *Queue) add(wl *cluster.QueuedWorkload, w cluster.Window, pods map[string]PodCost, unpriced *int) (float64, bool) {
	q.Workloads++
	n := float64(wl.Units())
	end := w.End
	if !wl.Finished.IsZero() && wl.Finished.Before(end) {
		end = wl.Finished
	}
	if wl.Admitted.IsZero() {
		q.PendingGPUHours += n * overlap(wl.Created, end, w)
		if wl.Finished.IsZero() || !wl.Finished.Before(w.End) {
			q.PendingWorkloads++
			q.PendingGPUs += wl.Units()
			q.OldestPendingSeconds = max(q.OldestPendingSeconds, w.End.Sub(wl.Created).Seconds())
		}
		return 0, false
	}
	q.PendingGPUHours += n * overlap(wl.Created, wl.Admitted, w)
	admitted := n * overlap(wl.Admitted, end, w)
	q.AdmittedGPUHours += admitted
	var active, unmeasured float64
	for _, key := range wl.Pods {
		c, ok := pods[key]
		if !ok {
			continue
		}
		q.HeldGPUHours += c.AllocatedGPUHours
		active += c.ActiveGPUHours
		unmeasured += c.UnmeasuredGPUHours
		if !c.Priced {
			*unpriced++
			continue
		}
		if q.IdlePodsUSD == nil {
			q.IdlePodsUSD = new(float64)
		}
		*q.IdlePodsUSD += c.IdleUSD
	}
	q.ActiveGPUHours += active
	q.UnmeasuredGPUHours += unmeasured
	q.IdleAdmittedGPUHours += max(0, admitted-active-unmeasured)
	if wl.Admitted.Before(w.Start) || wl.Admitted.After(w.End) {
		return 0, false
	}
	return wl.Admitted.Sub(wl.Created).Seconds(), true
}

// overlap is the hours [from, to) shares with the window.
func overlap(from, to time.Time, w cluster.Window) float64 {
	if from.Before(w.Start) {
		from = w.Start
	}
	if to.After(w.End) {
		to = w.End
	}
	if !to.After(from) {
		return 0
	}
	return to.Sub(from).Hours()
}

func (q *Queue) waits(ws []float64) {
	q.Admissions = len(ws)
	if len(ws) == 0 {
		return
	}
	var sum float64
	for _, v := range ws {
		sum += v
	}
	mean, top := sum/float64(len(ws)), slices.Max(ws)
	q.WaitMeanSeconds, q.WaitMaxSeconds = &mean, &top
}

// sum adds o's quotas, GPU-hours and demand into q.
func (q *Queue) sum(o *Queue) {
	q.NominalGPUs += o.NominalGPUs
	q.UsedGPUs += o.UsedGPUs
	q.BorrowedGPUs += o.BorrowedGPUs
	q.Workloads += o.Workloads
	q.AdmittedGPUHours += o.AdmittedGPUHours
	q.HeldGPUHours += o.HeldGPUHours
	q.ActiveGPUHours += o.ActiveGPUHours
	q.UnmeasuredGPUHours += o.UnmeasuredGPUHours
	q.IdleAdmittedGPUHours += o.IdleAdmittedGPUHours
	if o.IdlePodsUSD != nil {
		if q.IdlePodsUSD == nil {
			q.IdlePodsUSD = new(float64)
		}
		*q.IdlePodsUSD += *o.IdlePodsUSD
	}
	q.PendingWorkloads += o.PendingWorkloads
	q.PendingGPUs += o.PendingGPUs
	q.PendingGPUHours += o.PendingGPUHours
	q.OldestPendingSeconds = max(q.OldestPendingSeconds, o.OldestPendingSeconds)
}

// Sorted returns the queues by idle admitted GPU-hours, then pending
// GPU-hours, then name: the worst first.
func (r *Result) Sorted() []Queue {
	out := slices.Clone(r.Queues)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.IdleAdmittedGPUHours != b.IdleAdmittedGPUHours {
			return a.IdleAdmittedGPUHours > b.IdleAdmittedGPUHours
		}
		if a.PendingGPUHours != b.PendingGPUHours {
			return a.PendingGPUHours > b.PendingGPUHours
		}
		return a.Name < b.Name
	})
	return out
}
