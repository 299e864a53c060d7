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
// idle; the savings ledger removes no node that pods hold and rates no
// action high confidence.
func TestH1NoDCGMSeries(t *testing.T) {
	base, _ := state(t)
	p := newFaultProxy(t, base)
	p.dropAll = "DCGM_"
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
	faulted, code := advise(t, p.URL)
	if code != cli.ExitPartial || len(faulted.Partial) == 0 {
		t.Fatalf("advise without DCGM: exit %d, partial %q; want a partial ledger", code, faulted.Partial)
	}
	rank := map[string]int{"low": 0, "medium": 1, "high": 2}
	fullConf := map[string]string{}
	for _, a := range full.Actions {
		fullConf[a.Key] = a.Confidence
	}
	for _, a := range faulted.Actions {
		if a.Confidence == "high" && a.Kind != "prepare-nodes" { // see internal/cli TestH1AdviseWithoutDCGM
			t.Errorf("action %q is high confidence with every GPU unmeasured", a.Title)
		}
		c, ok := fullConf[a.Key]
		switch {
		case !ok:
			t.Errorf("action %q (%s) is not in the full data's ledger", a.Title, a.Confidence)
		case rank[a.Confidence] > rank[c]:
			t.Errorf("action %q is %s, %s with the full data", a.Title, a.Confidence, c)
		}
	}
}

type ledgerJSON struct {
	Partial []string `json:"partial"`
	Actions []struct {
		Key, Kind, Title, Confidence string
	} `json:"actions"`
}

func advise(t *testing.T, url string) (ledgerJSON, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Execute([]string{"advise", "--prometheus", url, "--window", window, "--end", end, "-o", "json", "--prometheus-read", "remote"},
		cli.Streams{Out: &out, Err: &errb})
	var l ledgerJSON
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatalf("advise %s: exit %d, %v: %s", url, code, err, errb.String())
	}
	return l, code
}
