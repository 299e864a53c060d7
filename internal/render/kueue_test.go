package render

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/kueue"
)

// sampleQueues: a queue wasting admitted GPU-hours, a starved one that
// borrows, and their total (figures as kueue.Report's hand-computed test).
func sampleQueues() *kueue.Result {
	wait := func(s float64) *float64 { return ptr(s) }
	a := kueue.Queue{Name: "team-a", Cohort: "gpus", LocalQueues: []string{"a/batch"}, NominalGPUs: 8, UsedGPUs: 6, Workloads: 2,
		AdmittedGPUHours: 20, MeanAdmittedGPUs: 2, HeldGPUHours: 20, ActiveGPUHours: 8, UnmeasuredGPUHours: 2,
		IdleAdmittedGPUHours: 10, IdlePodsUSD: ptr(30), PendingWorkloads: 1, PendingGPUs: 2, PendingGPUHours: 8,
		Admissions: 1, WaitMeanSeconds: wait(7200), WaitMaxSeconds: wait(7200), OldestPendingSeconds: 7200}
	b := kueue.Queue{Name: "team-b", Cohort: "gpus", LocalQueues: []string{"b/batch"}, NominalGPUs: 4, UsedGPUs: 6, BorrowedGPUs: 2, Workloads: 2,
		AdmittedGPUHours: 24, MeanAdmittedGPUs: 2.4, HeldGPUHours: 20, ActiveGPUHours: 12, IdleAdmittedGPUHours: 12, IdlePodsUSD: ptr(10),
		PendingGPUHours: 3, Admissions: 1, WaitMeanSeconds: wait(10800), WaitMaxSeconds: wait(10800)}
	return &kueue.Result{WindowHours: 10, Queues: []kueue.Queue{a, b},
		Total: kueue.Queue{Name: "total", NominalGPUs: 12, UsedGPUs: 12, BorrowedGPUs: 2, Workloads: 4, AdmittedGPUHours: 44, MeanAdmittedGPUs: 4.4,
			HeldGPUHours: 40, ActiveGPUHours: 20, UnmeasuredGPUHours: 2, IdleAdmittedGPUHours: 22, IdlePodsUSD: ptr(40),
			PendingWorkloads: 1, PendingGPUs: 2, PendingGPUHours: 11, Admissions: 2, WaitMeanSeconds: wait(9000), WaitMaxSeconds: wait(10800), OldestPendingSeconds: 7200},
		Notes: []string{"admission times are each workload's last admission: time admitted before an eviction and requeue is not counted"}}
}

func TestKueueQueuesGolden(t *testing.T) {
	for _, tt := range []struct {
		file   string
		format Format
	}{{"kueue.txt", Wide}, {"kueue.md", Markdown}, {"kueue.html", HTML}, {"kueue.json", JSON}, {"kueue.yaml", YAML}} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			var got bytes.Buffer
			if err := Report(&got, sampleReport(), tt.format, Options{Kueue: sampleQueues()}); err != nil {
				t.Fatalf("Report: %v", err)
			}
			checkGolden(t, filepath.Join("testdata", tt.file), got.Bytes())
		})
	}
}

// The worst queue (most idle admitted GPU-hours) comes first, and the
// starved figures sit on the same line as the waste.
func TestKueueQueuesWorstFirst(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	if err := Report(&got, sampleReport(), Wide, Options{Kueue: sampleQueues()}); err != nil {
		t.Fatal(err)
	}
	out := got.String()
	a, b := strings.Index(out, "team-a "), strings.Index(out, "team-b ")
	if a < 0 || b < 0 || b > a {
		t.Fatalf("team-b (12 idle admitted GPU-h) should come before team-a (10):\n%s", out)
	}
	line := out[a : a+strings.Index(out[a:], "\n")]
	for _, want := range []string{"10.0", "$30", "2h"} {
		if !strings.Contains(line, want) {
			t.Errorf("team-a's line %q lacks %q", line, want)
		}
	}
}

// -o csv --csv-table kueue: one line per queue and the total, at full
// precision; without Kueue, an error naming why.
func TestKueueCSV(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	if err := KueueCSV(&got, sampleQueues()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "kueue.csv"), got.Bytes())
	if err := KueueCSV(&got, nil); err == nil || !strings.Contains(err.Error(), "no Kueue queues") {
		t.Errorf("no Kueue: %v", err)
	}
}
