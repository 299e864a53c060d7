//go:build integration

package prom_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cli"
)

// TestH1NoDCGMSeries (issue 31 H1) against the real Prometheus: with no
// DCGM_* series at all (dcgm-exporter not scraped), the report is partial
// and says so first, GPU allocation still matches the ground truth
// exactly (the MIG node's slices come from its advertised MIG resources,
// its pods keep them), every allocated GPU-hour is unmeasured and none
// idle; the savings ledger rates no action high confidence, saves no more
// than the full data, and gives no action the full data does not give at
// the same or a higher confidence and saving. An action may come from
// the full data's ledger with the levers that read GPU usage (shape,
// reclaim, quantize: DCGM's) turned off: without DCGM they find nothing,
// and a node the shape changes free with the full data is then freed by
// the CPU/memory right-sizing instead (the same L4 node price, the same
// confidence); that is the full data's own answer, not a larger one. No
// one-year commitment is advised on the partial read (withheld: the
// baseline it would be sized on rests on the missing series).
func TestH1NoDCGMSeries(t *testing.T) {
	base, _ := state(t)
	p := newFaultProxy(t, base)
	// No GPU exporter: DCGM's, AMD's for the history's MI300X node and
	// neuron-monitor's for its Trainium node.
	p.dropAll = []string{"DCGM_", "gpu_gfx_activity", "gpu_used_vram", "neuroncore_"}
	got, _, stderr, code := reportJSON(t, p.URL)
	if code != cli.ExitPartial || len(got.Partial) == 0 || !strings.Contains(got.Partial[0], "no DCGM series in the window") {
		t.Fatalf("exit %d, partial %q: %s; want %d with the missing exporter first", code, got.Partial, stderr, cli.ExitPartial)
	}
	w, g := truthTotals(t), got.Totals
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"allocated", g.GPUHours.Allocated, w.GPUHours.Allocated},
		{"unallocated", g.GPUHours.Unallocated, w.GPUHours.Unallocated},
		{"unmeasured", g.GPUHours.Unmeasured, w.GPUHours.Allocated},
		{"idle", g.GPUHours.Idle, 0},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s GPU-hours %.3f, want %.3f", c.name, c.got, c.want)
		}
	}
	full, code := advise(t, base)
	if code != cli.ExitOK {
		t.Fatalf("advise on the full data: exit %d", code)
	}
	noUsage, code := advise(t, base, "--levers", "rightsize,consolidate,autoscale,spot,commit")
	if code != cli.ExitOK {
		t.Fatalf("advise on the full data without the GPU-usage levers: exit %d", code)
	}
	faulted, code := advise(t, p.URL)
	if code != cli.ExitPartial || len(faulted.Partial) == 0 {
		t.Fatalf("advise without DCGM: exit %d, partial %q; want a partial ledger", code, faulted.Partial)
	}
	if faulted.Saving > full.Saving+0.01 {
		t.Errorf("without DCGM the ledger saves $%.2f/month, more than the full data's $%.2f", faulted.Saving, full.Saving)
	}
	rank := map[string]int{"low": 0, "medium": 1, "high": 2}
	// within: the ledger l gives a's action at a's confidence or higher and
	// a's saving or more (the commitment too: on a partial read it is
	// withheld, TestCommitWithheldOnPartialRead).
	within := func(l ledgerJSON, a ledgerAction) (ledgerAction, bool) {
		f, ok := l.action(a.Key)
		return f, ok && rank[a.Confidence] <= rank[f.Confidence] && a.Saving <= f.Saving+0.01
	}
	if _, ok := faulted.action(commitKey); ok {
		t.Errorf("a commitment is advised on a partial read")
	}
	if _, ok := full.action(commitKey); !ok {
		t.Errorf("the full data advises no commitment: the withheld one checks nothing")
	}
	for _, a := range faulted.Actions {
		if a.Confidence == "high" {
			t.Errorf("action %q is high confidence with every GPU unmeasured", a.Title)
		}
		if _, ok := within(noUsage, a); ok {
			continue
		}
		f, ok := within(full, a)
		switch {
		case ok:
		case f.Key == "":
			t.Errorf("action %q (%s) is not in the full data's ledger", a.Title, a.Confidence)
		default:
			t.Errorf("action %q is %s and saves $%.2f/month; %s and $%.2f with the full data", a.Title, a.Confidence, a.Saving, f.Confidence, f.Saving)
		}
	}
}

// commitKey is the commit lever's action key.
const commitKey = "commit:commit:on-demand GPU nodes"

type ledgerJSON struct {
	Partial []string       `json:"partial"`
	Saving  float64        `json:"saving_usd_month"`
	Actions []ledgerAction `json:"actions"`
}

type ledgerAction struct {
	Key, Kind, Title, Confidence string
	Saving                       float64 `json:"saving_usd_month"`
}

// action is the ledger's action of key.
func (l ledgerJSON) action(key string) (ledgerAction, bool) {
	for _, a := range l.Actions {
		if a.Key == key {
			return a, true
		}
	}
	return ledgerAction{}, false
}

func advise(t *testing.T, url string, extra ...string) (ledgerJSON, int) {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"advise", "--prometheus", url, "--window", window, "--end", end, "-o", "json", "--prometheus-read", "remote"}, extra...)
	code := cli.Execute(args, cli.Streams{Out: &out, Err: &errb})
	var l ledgerJSON
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatalf("advise %s: exit %d, %v: %s", url, code, err, errb.String())
	}
	return l, code
}
