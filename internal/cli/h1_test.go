package cli

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// simHistory is a day of the simulated demo cluster (its MIG node
// mig-a100-1 included) as Prometheus would hold it, and the window's
// end, made once.
var simHistory = sync.OnceValues(func() ([]promtest.Series, error) {
	var buf bytes.Buffer
	if _, err := sim.WriteOpenMetrics(sim.Config{Seed: 1, Scale: 1, Window: 24 * time.Hour}, &buf); err != nil {
		return nil, err
	}
	return promtest.ParseOpenMetrics(&buf)
})

// simEnd is the end of simHistory's window (the simulator's default start
// + 24 h).
const simEnd = "2026-11-02T00:00:00Z"

// without is the history less every series whose metric name starts with
// one of prefixes.
func without(prefixes ...string) func([]promtest.Series) []promtest.Series {
	return func(ss []promtest.Series) []promtest.Series {
		var out []promtest.Series
		for _, s := range ss {
			keep := true
			for _, p := range prefixes {
				keep = keep && !strings.HasPrefix(s.Labels["__name__"], p)
			}
			if keep {
				out = append(out, s)
			}
		}
		return out
	}
}

// advised is what the property compares of `advise -o json`.
type advised struct {
	Partial []string `json:"partial"`
	Saving  float64  `json:"saving_usd_month"`
	Actions []struct {
		Key        string  `json:"key"`
		Kind       string  `json:"kind"`
		Title      string  `json:"title"`
		Confidence string  `json:"confidence"`
		Saving     float64 `json:"saving_usd_month"`
	} `json:"actions"`
}

func adviseOn(t *testing.T, edit func([]promtest.Series) []promtest.Series, format string) (string, string, int) {
	t.Helper()
	ss, err := simHistory()
	if err != nil {
		t.Fatal(err)
	}
	srv := promtest.New(t, ss)
	if edit != nil {
		srv.Edit(edit)
	}
	return run(t, "advise", "--prometheus", srv.URL, "--window", "1d", "--end", simEnd, "--prometheus-read", "remote", "-o", format)
}

// TestH1AdviseWithoutDCGM (issue 31 H1): with no DCGM_* series at all the
// MIG node's pods keep their slices (from the node's advertised MIG
// resources), so no action removes it; the ledger is partial (exit 6),
// says so before any figure, and no action is high confidence.
func TestH1AdviseWithoutDCGM(t *testing.T) {
	t.Parallel()
	out, errOut, code := adviseOn(t, without("DCGM_"), "table")
	if code != ExitPartial || !strings.Contains(errOut, "no DCGM series in the window") {
		t.Fatalf("exit %d, stderr %q; want %d and the missing exporter named", code, errOut, ExitPartial)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, "PARTIAL RESULT") {
		t.Errorf("the ledger starts %q; want the partial note first", first)
	}
	// The groundwork's DCGM step names the unmeasured nodes, the MIG node
	// among them; no other line may name it.
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "mig-a100-1") && !strings.Contains(line, "DCGM exporter on every GPU node") || strings.Contains(line, "A100-80GB node(s) in pool p4de") {
			t.Errorf("a removal of the MIG node with no DCGM data: %q in\n%.3000s", line, out)
		}
	}
	jsonOut, _, _ := adviseOn(t, without("DCGM_"), "json")
	var a advised
	if err := json.Unmarshal([]byte(jsonOut), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Partial) == 0 {
		t.Error("the JSON ledger has no partial list")
	}
	for _, act := range a.Actions {
		// A partial read caps every action at medium (ledger
		// TestPartialReadCapsConfidence): the $0 "Make room on kept nodes"
		// prerequisite too, whose MIG re-cuts start from a layout laid out
		// from the inventory.
		if act.Confidence == "high" {
			t.Errorf("action %q is high confidence with every GPU unmeasured", act.Title)
		}
	}
}

var confidenceRank = map[string]int{"low": 0, "medium": 1, "high": 2}

// TestH1NoFaultModeRaisesAnAction (issue 31 H1): a property over fault
// modes. Removing any one series family (each metric the history holds,
// and each exporter whole) never gives an action that the full data does
// not give, nor one at a higher confidence or a larger saving, nor a
// larger total saving;
// and a read that lost a family is partial or fails (exit 6 or 3), never
// a clean exit 0 when an exporter is gone whole. Every family is in:
// without kube_pod_start_time or kube_pod_completion_time the pod lives
// estimated from kube_pod_info's sightings are cut at the same GPU unit's
// neighbouring holders (prom TestCutEstimatedLives).
func TestH1NoFaultModeRaisesAnAction(t *testing.T) {
	ss, err := simHistory()
	if err != nil {
		t.Fatal(err)
	}
	fullOut, errOut, code := adviseOn(t, nil, "json")
	if code != 0 {
		t.Fatalf("full data: exit %d, %s", code, errOut)
	}
	var full advised
	if err := json.Unmarshal([]byte(fullOut), &full); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]int{}
	for i, act := range full.Actions {
		byKey[act.Key] = i
	}
	names := map[string]bool{}
	for _, s := range ss {
		names[s.Labels["__name__"]] = true
	}
	families := []string{"DCGM_", "container_", "kube_", "vllm:", "nv_inference"}
	for n := range names {
		families = append(families, n)
	}
	sort.Strings(families)
	for _, fam := range families {
		t.Run(fam, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := adviseOn(t, without(fam), "json")
			if code != 0 && code != ExitPartial && code != ExitInput {
				t.Fatalf("exit %d, %s", code, errOut)
			}
			if code == ExitInput {
				// No ledger at all (kube_node_info, kube_pod_info: no nodes or
				// pods; kube_node_labels:
				// GPU models unknown, so nothing can be packed): nothing to
				// compare, and no confident wrong answer.
				if !strings.Contains(errOut, "kube_pod_info") && !strings.Contains(errOut, "kube_node_info") && !strings.Contains(errOut, "unknown model") {
					t.Errorf("exit 3 with %q", errOut)
				}
				return
			}
			// An inference server's exporter (vLLM, Triton) gone whole is
			// not a fault the read can tell from a cluster that runs no
			// such server: the hourly series' note says their counts are
			// missing, and exit 0 stands.
			whole := strings.HasSuffix(fam, "_")
			if whole && code == 0 {
				t.Errorf("exporter %s gone whole, and exit 0", fam)
			}
			var got advised
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if got.Saving > full.Saving+0.01 {
				t.Errorf("saves $%.2f/month, more than the full data's $%.2f", got.Saving, full.Saving)
			}
			for _, act := range got.Actions {
				i, ok := byKey[act.Key]
				if !ok {
					t.Errorf("action %q (%s, $%.2f) is not in the full data's ledger", act.Title, act.Confidence, act.Saving)
					continue
				}
				if f := full.Actions[i]; act.Saving > f.Saving+0.01 {
					t.Errorf("action %q saves $%.2f/month, $%.2f with the full data", act.Title, act.Saving, f.Saving)
				}
				if f := full.Actions[i]; confidenceRank[act.Confidence] > confidenceRank[f.Confidence] {
					t.Errorf("action %q is %s, %s with the full data", act.Title, act.Confidence, f.Confidence)
				}
			}
		})
	}
}
