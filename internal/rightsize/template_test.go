package rightsize

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/usage"
)

func TestStem(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"rl-sim-3b":                "rl-sim",
		"reward-model-r4":          "reward-model",
		"llama3-70b-lora-spot-b-8": "llama3-70b-lora-spot-b",
		"llama3-70b-lora":          "llama3-70b-lora", // last part has no digit: no run suffix
		"nightly":                  "nightly",
		"-7":                       "-7",
	} {
		if got := stem(name); got != want {
			t.Errorf("stem(%q) = %q, want %q", name, got, want)
		}
	}
}

// runPod is one Job run of hours h starting at hour from, with CPU and
// memory measured over its whole run at a constant value.
func runPod(job string, from, h float64, cpu float64, memGiB int64) cluster.Pod {
	p := clustertest.Pod("research", job+"-pod").On("a").Owner("Job", job).Requests(8000, 64).
		Life(clustertest.At(from), clustertest.At(from+h)).Obj()
	sec := h * 3600
	p.Containers[0].CPU, p.Containers[0].Memory = &usage.Gauge{}, &usage.Gauge{}
	p.Containers[0].CPU.Add(cpu, sec)
	p.Containers[0].Memory.Add(float64(memGiB<<30), sec)
	p.Phase = "Succeeded"
	return p
}

// Six 6-hour runs of one template (rl-sim-1a … rl-sim-6a) each have a
// quarter of the policy's day of data; their union has 36 h, so every
// run gets a recommendation sized from all six: CPU p95 of
// {1,1,1,1,1,2} cores by time is 2 cores, memory max 20 GiB × 1.2 = 24 GiB.
// The data spans 36 h (the runs do not overlap) of a full coverage:
// under 3 days, but six runs of one template reach medium.
func TestRepeatedJobsSizedFromTheirUnion(t *testing.T) {
	t.Parallel()
	var pods []cluster.Pod
	for i := 1; i <= 6; i++ {
		cpu, mem := 1.0, int64(10)
		if i == 6 {
			cpu, mem = 2, 20
		}
		pods = append(pods, runPod(fmt.Sprintf("rl-sim-%da", i), float64(i-1)*24, 6, cpu, mem))
	}
	// A job of another template (other requests) keeps its own data: 6 h,
	// too little.
	other := runPod("protein-fold-1a", 150, 6, 1, 10)
	other.Containers[0].CPURequestMilli = 16000
	pods = append(pods, other)
	r := recommend(t, snapshot(t, []cluster.Node{a100Node("a")}, pods...), testCatalog())
	if len(r.Containers) != 6 {
		t.Fatalf("got %d container recommendations, want 6 (one per run); skipped %+v", len(r.Containers), r.Skipped)
	}
	for _, c := range r.Containers {
		if c.Template != "research/Job/rl-sim-*" || c.Runs != 6 {
			t.Errorf("%s: template %q runs %d, want research/Job/rl-sim-* and 6", c.Workload, c.Template, c.Runs)
		}
		if c.CPUMilli != 2000 || c.MemoryBytes != 24<<30 {
			t.Errorf("%s: %dm / %d bytes, want 2000m and 24Gi", c.Workload, c.CPUMilli, c.MemoryBytes)
		}
		if c.CPUEvidence.Span != 36*time.Hour || c.CPUEvidence.Pods != 6 {
			t.Errorf("%s: span %v pods %d, want 36h and 6", c.Workload, c.CPUEvidence.Span, c.CPUEvidence.Pods)
		}
		if c.Confidence != Medium || !strings.Contains(c.ConfidenceReason, "sized from 6 runs of one template (medium: ≥ 5 runs") {
			t.Errorf("%s: confidence %s (%s), want medium from 6 runs", c.Workload, c.Confidence, c.ConfidenceReason)
		}
	}
	var skipped bool
	for _, s := range r.Skipped {
		skipped = skipped || (s.Workload == "research/Job/protein-fold-1a" && strings.Contains(s.Reason, "too little data: 6h"))
	}
	if !skipped {
		t.Errorf("protein-fold-1a (a template of its own) not skipped for too little data: %+v", r.Skipped)
	}
}

// Confidence reads span, coverage, runs, interruptions and OOM kills.
func TestConfidenceDiscriminates(t *testing.T) {
	t.Parallel()
	ev := func(span time.Duration, cov float64) Evidence { return Evidence{Span: span, Coverage: cov} }
	week, day := 7*24*time.Hour, 24*time.Hour
	for _, c := range []struct {
		name string
		t    trust
		evs  []Evidence
		want Confidence
	}{
		{"a week at full coverage", trust{runs: 1, pods: 3}, []Evidence{ev(week, 1), ev(week, 1)}, High},
		{"a week at 89% coverage", trust{runs: 1, pods: 3}, []Evidence{ev(week, 0.89)}, Medium},
		{"the weakest evidence wins", trust{runs: 1, pods: 3}, []Evidence{ev(week, 1), ev(3*day, 0.8)}, Medium},
		{"two days", trust{runs: 1, pods: 1}, []Evidence{ev(2*day, 1)}, Low},
		{"two days, four runs", trust{runs: 4, pods: 4}, []Evidence{ev(2*day, 1)}, Low},
		{"two days, five runs", trust{runs: 5, pods: 5}, []Evidence{ev(2*day, 1)}, Medium},
		{"five runs at 70% coverage", trust{runs: 5, pods: 5}, []Evidence{ev(2*day, 0.7)}, Low},
		{"a week, 1 of 10 pods interrupted", trust{runs: 1, pods: 10, interrupted: 1}, []Evidence{ev(week, 1)}, High},
		{"a week, 2 of 10 pods interrupted", trust{runs: 1, pods: 10, interrupted: 2}, []Evidence{ev(week, 1)}, Medium},
		{"a week, OOM-killed", trust{runs: 1, pods: 1, oomKilled: true}, []Evidence{ev(week, 1)}, Medium},
		{"no evidence", trust{}, nil, Low},
	} {
		if got, why := confidence(c.t, c.evs...); got != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, got, why, c.want)
		}
	}
}

// A Job that ran two days of a week used to read a 7-day span (observed
// time over average concurrent pods); its data spans the two days it ran.
func TestSpanIsTheTimeThePodsRan(t *testing.T) {
	t.Parallel()
	p := runPod("train", 10, 48, 1, 10)
	r := recommend(t, snapshot(t, []cluster.Node{a100Node("a")}, p), testCatalog())
	if len(r.Containers) != 1 {
		t.Fatalf("containers %+v skipped %+v", r.Containers, r.Skipped)
	}
	c := r.Containers[0]
	if c.CPUEvidence.Span != 48*time.Hour || c.Confidence != Low {
		t.Errorf("span %v confidence %s (%s), want 48h and low", c.CPUEvidence.Span, c.Confidence, c.ConfidenceReason)
	}
}
