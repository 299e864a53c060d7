//go:build integration

package backend

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"testing"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// jsonOf runs gpuwise with args (asking for -o json) into v.
func jsonOf(t *testing.T, v any, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Execute(args, cli.Streams{Out: &out, Err: &errb}); code != cli.ExitOK {
		t.Fatalf("gpuwise %v: exit %d: %s", args, code, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("gpuwise %v: %v", args, err)
	}
}

// SameAnswers (issue 26.3): the simulated history read back from a real
// Prometheus-compatible backend at url gives the audit, plan and advise its own snapshot
// gives, except for what kube-state-metrics cannot hold, each difference
// allowed here named:
//   - required node affinity is not exported by kube-state-metrics, so
//     GW005 (GPU pod without model affinity) is undecided from Prometheus
//     for exactly the workloads it flags from the snapshot, never a finding;
//   - activity is read on a step grid (activityTolerance),
//     so dollars resting on activity (right-sizing, shapes, the levers
//     after them) agree within that tolerance, not to the cent.
//
// Tolerations and node selectors are exported (kube_pod_tolerations,
// kube_pod_nodeselectors), so GW004 and the plan's constraints agree
// exactly: no GPU pod flagged without its toleration, none unplaced.
func SameAnswers(t *testing.T, url, truth, window, end string, activityTolerance float64) {
	t.Helper()
	prom := []string{"--prometheus", url, "--window", window, "--end", end}
	file := []string{"--from", truth, "--window", window}
	args := func(cmd string, src []string, extra ...string) []string {
		return append(append(append([]string{cmd}, src...), "-o", "json"), extra...)
	}

	var ap, af audit.Result
	jsonOf(t, &ap, args("audit", prom)...)
	jsonOf(t, &af, args("audit", file)...)
	findings := func(r audit.Result, skip string) ([]string, int) {
		var out []string
		n := 0
		for _, f := range r.Findings {
			if f.Rule == skip {
				n++
				continue
			}
			out = append(out, f.Rule+" "+f.Object)
		}
		sort.Strings(out)
		return out, n
	}
	gotF, _ := findings(ap, audit.RuleNoModelAffinity)
	wantF, gw005 := findings(af, audit.RuleNoModelAffinity)
	if !equalStrings(gotF, wantF) {
		t.Errorf("audit findings from Prometheus differ from the snapshot's (GW005 aside):\n got %q\nwant %q", gotF, wantF)
	}
	for _, f := range ap.Findings {
		if f.Rule == audit.RuleNoModelAffinity || f.Rule == audit.RuleNoToleration && !hasRule(af, audit.RuleNoToleration) {
			t.Errorf("finding %s %s from Prometheus rests on a fact it cannot read, or the snapshot lacks it", f.Rule, f.Object)
		}
	}
	undecided := 0
	for _, u := range ap.Undecided {
		if u.Rule != audit.RuleNoModelAffinity || len(u.Facts) != 1 || u.Facts[0] != cluster.FactNodeAffinity {
			t.Errorf("undecided %+v: only GW005 on node affinity is unknown from Prometheus", u)
		}
		undecided += u.Objects
	}
	if undecided != gw005 {
		t.Errorf("GW005 undecided for %d workloads from Prometheus, flagged for %d from the snapshot", undecided, gw005)
	}

	for _, shapes := range []string{"current", "recommended"} {
		var pp, pf packing.Plan
		jsonOf(t, &pp, args("plan", prom, "--shapes", shapes)...)
		jsonOf(t, &pf, args("plan", file, "--shapes", shapes)...)
		if len(pp.Unplaced) != len(pf.Unplaced) {
			t.Errorf("plan --shapes %s: %d unplaced from Prometheus, %d from the snapshot", shapes, len(pp.Unplaced), len(pf.Unplaced))
		}
		tol := 1e-9
		if shapes == "recommended" {
			tol = activityTolerance
		}
		if pp.SavingsUSDPerMonth == nil || pf.SavingsUSDPerMonth == nil || !near(*pp.SavingsUSDPerMonth, *pf.SavingsUSDPerMonth, tol) {
			t.Errorf("plan --shapes %s saves %v from Prometheus, %v from the snapshot (±%.1f%%)", shapes, pp.SavingsUSDPerMonth, pf.SavingsUSDPerMonth, 100*tol)
		}
	}

	var lp, lf ledger.Ledger
	jsonOf(t, &lp, args("advise", prom)...)
	jsonOf(t, &lf, args("advise", file)...)
	if !near(lp.BeforeUSDMonth, lf.BeforeUSDMonth, 1e-9) {
		t.Errorf("advise before: $%.2f from Prometheus, $%.2f from the snapshot (exact: node prices)", lp.BeforeUSDMonth, lf.BeforeUSDMonth)
	}
	if !near(lp.SavingUSDMonth, lf.SavingUSDMonth, activityTolerance) {
		t.Errorf("advise saves $%.2f from Prometheus, $%.2f from the snapshot (±%.1f%%)", lp.SavingUSDMonth, lf.SavingUSDMonth, 100*activityTolerance)
	}
	if a, b := leverKinds(lp), leverKinds(lf); !equalStrings(a, b) {
		t.Errorf("advise actions by lever from Prometheus %q, from the snapshot %q", a, b)
	}
}

func hasRule(r audit.Result, rule string) bool {
	for _, f := range r.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// leverKinds are the ledger's actions as "lever kind", sorted.
func leverKinds(l ledger.Ledger) []string {
	var out []string
	for _, a := range l.Actions {
		out = append(out, a.Lever+" "+a.Kind)
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// near reports whether got is within rel of want, as the tiers' own
// near does.
func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-9)
}
