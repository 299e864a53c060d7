package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/kueue"
)

// kueueGrids are the "Kueue queues" table: per ClusterQueue its GPU
// quota, what its workloads were admitted for against what their pods
// used (waste) and what waited (starved), worst first. None without
// Kueue.
func kueueGrids(r *kueue.Result) []grid {
	if r == nil {
		return nil
	}
	g := grid{
		Title: "Kueue queues",
		Caption: "per ClusterQueue: GPU quota and status usage now; GPU-hours admitted vs held and active by its workloads' pods (cost engine) " +
			"and the idle inside admitted workloads (waste; idle $: the pods' allocated-but-idle GPU dollars over the window), beside the GPU demand that waited and how long (starved); GPU units as Kueue counts them",
		KeyTitle: "cluster queue",
		Cols: []column{{"cohort", false}, {"nominal", false}, {"used", false}, {"borrowed", false},
			{"admitted GPU-h", false}, {"held GPU-h", false}, {"active GPU-h", false}, {"idle admitted GPU-h", false}, {"idle $", true},
			{"pending", false}, {"pending GPUs", false}, {"waited GPU-h", false}, {"mean wait", false}, {"max wait", false}, {"oldest pending", false}},
	}
	for _, q := range r.Sorted() {
		g.Rows = append(g.Rows, kueueRow(q, q.Name))
	}
	total := kueueRow(r.Total, "ALL")
	total.Whole = true
	g.Total = &total
	g.Footnotes = append(g.Footnotes, r.Notes...)
	for _, q := range r.Queues {
		if len(q.LocalQueues) > 0 {
			g.Footnotes = append(g.Footnotes, q.Name+" local queues: "+strings.Join(q.LocalQueues, ", "))
		}
	}
	return []grid{g}
}

func kueueRow(q kueue.Queue, key string) gridRow {
	idle := moneyOr(q.IdlePodsUSD, "n/a", money)
	return gridRow{Key: key, Cells: []string{orDash(q.Cohort), fmt.Sprint(q.NominalGPUs), fmt.Sprint(q.UsedGPUs), fmt.Sprint(q.BorrowedGPUs),
		hours(q.AdmittedGPUHours), hours(q.HeldGPUHours), hours(q.ActiveGPUHours), hours(q.IdleAdmittedGPUHours), idle,
		fmt.Sprint(q.PendingWorkloads), fmt.Sprint(q.PendingGPUs), hours(q.PendingGPUHours),
		waitOr(q.WaitMeanSeconds), waitOr(q.WaitMaxSeconds), waitOr(&q.OldestPendingSeconds)},
		Hot: []bool{false, false, false, false, false, false, false, false, deref(q.IdlePodsUSD) > 0, false, false, false, false, false, false}}
}

// waitOr is a wait to the minute ("3h", "2h30m", "45m"), "-" when none.
func waitOr(s *float64) string {
	if s == nil || *s == 0 {
		return "-"
	}
	d := time.Duration(*s * float64(time.Second)).Round(time.Minute)
	h, m := int64(d/time.Hour), int64(d%time.Hour/time.Minute)
	switch {
	case d == 0:
		return "<1m"
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}

// kueueCSVHeader names the Kueue CSV's columns (report -o csv
// --csv-table kueue): one line per ClusterQueue, then the total (name
// "total"), the JSON's figures at full precision, empty where absent.
var kueueCSVHeader = []string{"name", "cohort", "local_queues", "nominal_gpus", "used_gpus", "borrowed_gpus", "workloads",
	"admitted_gpu_hours", "mean_admitted_gpus", "held_gpu_hours", "active_gpu_hours", "unmeasured_gpu_hours",
	"idle_admitted_gpu_hours", "idle_pods_usd", "pending_workloads", "pending_gpus", "pending_gpu_hours",
	"admissions", "wait_mean_seconds", "wait_max_seconds", "oldest_pending_seconds"}

// KueueCSV writes the per-queue report as one CSV table.
func KueueCSV(w io.Writer, r *kueue.Result) error {
	if r == nil {
		return fmt.Errorf("rendering csv kueue: the snapshot has no Kueue queues (the cluster serves no kueue.x-k8s.io/v1beta2, or the source cannot read it: docs/kueue.md)")
	}
	cw := csv.NewWriter(w)
	cw.Write(kueueCSVHeader)
	opt := func(v *float64) string {
		if v == nil {
			return ""
		}
		return exact(*v)
	}
	for _, q := range append(slices.Clone(r.Queues), r.Total) {
		cw.Write([]string{q.Name, q.Cohort, strings.Join(q.LocalQueues, " "), fmt.Sprint(q.NominalGPUs), fmt.Sprint(q.UsedGPUs), fmt.Sprint(q.BorrowedGPUs),
			fmt.Sprint(q.Workloads), exact(q.AdmittedGPUHours), exact(q.MeanAdmittedGPUs), exact(q.HeldGPUHours), exact(q.ActiveGPUHours),
			exact(q.UnmeasuredGPUHours), exact(q.IdleAdmittedGPUHours), opt(q.IdlePodsUSD), fmt.Sprint(q.PendingWorkloads), fmt.Sprint(q.PendingGPUs),
			exact(q.PendingGPUHours), fmt.Sprint(q.Admissions), opt(q.WaitMeanSeconds), opt(q.WaitMaxSeconds), exact(q.OldestPendingSeconds)})
	}
	cw.Flush()
	return cw.Error()
}
