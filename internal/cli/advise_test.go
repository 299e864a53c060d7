package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/render"
)

// The demo's savings ledger is golden in every format a person or a
// machine reads.
func TestAdviseDemoGolden(t *testing.T) {
	for _, f := range render.Formats {
		out, errOut, code := run(t, "advise", "--demo", "-o", string(f))
		if code != ExitOK {
			t.Fatalf("-o %s: exit %d: %s", f, code, errOut)
		}
		golden(t, "advise."+string(f), out)
	}
}

func adviseJSON(t *testing.T, args ...string) ledger.Ledger {
	t.Helper()
	out, errOut, code := run(t, append([]string{"advise", "-o", "json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("advise %v: exit %d: %s", args, code, errOut)
	}
	var l ledger.Ledger
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestAdviseDemoAddsUp: the JSON's actions add up to before − after to
// the cent, the demo's levers up to consolidation are what `gpuwise plan`
// saves, and the bridge starts from the report's monthly spend.
func TestAdviseDemoAddsUp(t *testing.T) {
	l := adviseJSON(t, "--demo")
	upToPlan := adviseJSON(t, "--demo", "--levers", "rightsize,shape,consolidate")
	var sum ledger.Cents
	for _, a := range l.Actions {
		sum += ledger.CentsOf(a.SavingUSDMonth)
	}
	if sum != ledger.CentsOf(l.BeforeUSDMonth)-ledger.CentsOf(l.AfterUSDMonth) || sum != ledger.CentsOf(l.SavingUSDMonth) || sum <= 0 {
		t.Errorf("actions sum to %s; before %v after %v saving %v", sum, l.BeforeUSDMonth, l.AfterUSDMonth, l.SavingUSDMonth)
	}
	pl := planJSON(t, "--demo")
	if ledger.CentsOf(*pl.SavingsUSDPerMonth) != ledger.CentsOf(upToPlan.SavingUSDMonth) || ledger.CentsOf(*pl.Before.USDPerMonth) != ledger.CentsOf(l.BeforeUSDMonth) {
		t.Errorf("plan saves %v of %v, the ledger up to consolidation %v of %v", *pl.SavingsUSDPerMonth, *pl.Before.USDPerMonth, upToPlan.SavingUSDMonth, l.BeforeUSDMonth)
	}
	out, _, _ := run(t, "demo", "-o", "json")
	var rep struct {
		Totals struct {
			Monthly float64 `json:"monthly_cost_usd"`
		} `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if ledger.CentsOf(rep.Totals.Monthly) != ledger.CentsOf(l.Bridge.ReportUSDMonth) {
		t.Errorf("report says %v/month, the bridge %v", rep.Totals.Monthly, l.Bridge.ReportUSDMonth)
	}
}

// TestAdviseArtefactsExist: every file an action names is written by the
// command it names.
func TestAdviseArtefactsExist(t *testing.T) {
	l := adviseJSON(t, "--demo")
	done := map[string]string{}
	for _, a := range l.Actions {
		for _, art := range a.Artefacts {
			dir, ok := done[art.Command]
			if !ok {
				dir = t.TempDir()
				args := strings.Fields(strings.TrimPrefix(art.Command, "gpuwise "))
				args[len(args)-1] = dir // "-d out/"
				if _, errOut, code := run(t, append(args, "--demo")...); code != ExitOK {
					t.Fatalf("%s: exit %d: %s", art.Command, code, errOut)
				}
				done[art.Command] = dir
			}
			for _, f := range art.Files {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s: %s names %s, which %s does not write", a.ID, a.Title, f, art.Command)
				}
			}
		}
	}
	if len(done) == 0 {
		t.Error("no action names an artefact")
	}
}

func TestAdviseBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--levers", "consolidate,spot-magic"}, `unknown lever "spot-magic"`},
		{[]string{"--engineer-rate", "-20"}, "engineer rate: -20 $/hour is not a non-negative amount"},
		{[]string{"-o", "sarif"}, `output format "sarif" is not one of table, wide, json, yaml, csv, markdown, html`},
	} {
		_, errOut, code := run(t, append([]string{"advise", "--demo"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %d naming %q", c.args, code, errOut, ExitUsage, c.want)
		}
	}
}

// TestAdviseLeversSubset: consolidation alone is the demo's saving up to
// consolidation (right-sizing frees no further node there), right-sizing
// without consolidation saves nothing it can count, and the autoscale
// lever adds to consolidation: keeping the nodes the peak needs and
// scaling every pool in the troughs saves more than removing them for good.
func TestAdviseLeversSubset(t *testing.T) {
	all := adviseJSON(t, "--demo")
	upToPlan := adviseJSON(t, "--demo", "--levers", "rightsize,shape,consolidate")
	cons := adviseJSON(t, "--demo", "--levers", "consolidate")
	rs := adviseJSON(t, "--demo", "--levers", "rightsize,shape")
	if cons.SavingUSDMonth != upToPlan.SavingUSDMonth || rs.SavingUSDMonth != 0 || len(rs.Actions) != 0 || all.SavingUSDMonth <= cons.SavingUSDMonth {
		t.Errorf("all %v, up to consolidation %v, consolidate %v, rightsize+shape %v with %d actions", all.SavingUSDMonth, upToPlan.SavingUSDMonth, cons.SavingUSDMonth, rs.SavingUSDMonth, len(rs.Actions))
	}
}

func planJSON(t *testing.T, args ...string) packing.Plan {
	t.Helper()
	out, errOut, code := run(t, append([]string{"plan", "-o", "json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("plan %v: exit %d: %s", args, code, errOut)
	}
	var pl packing.Plan
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatal(err)
	}
	return pl
}

// TestAutoscalingPolicyRefused: bad autoscaling values as flags are usage
// errors naming the flag (exit 2); in a policy file they are input errors
// naming the field (exit 3); advise and generate autoscaling alike.
func TestAutoscalingPolicyRefused(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(bad, []byte("autoscaling:\n  targetActivity: 1.5\n  minReplicas: 4\n  maxReplicas: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"advise"}, {"generate", "autoscaling"}} {
		for _, c := range []struct {
			args []string
			code int
			want []string
		}{
			{[]string{"--target-activity", "0"}, ExitUsage, []string{"--target-activity: 0 is outside (0, 1]"}},
			{[]string{"--target-activity", "1.2"}, ExitUsage, []string{"--target-activity: 1.2 is outside (0, 1]"}},
			{[]string{"--min-replicas", "5", "--max-replicas", "2"}, ExitUsage, []string{"--min-replicas: the floor 5 is above the ceiling --max-replicas 2"}},
			{[]string{"--policy", bad}, ExitInput, []string{"autoscaling.targetActivity: 1.5 is outside (0, 1]", "autoscaling.minReplicas: the floor 4 is above the ceiling autoscaling.maxReplicas 2"}},
		} {
			args := append(append(append([]string{}, cmd...), "--demo"), c.args...)
			_, errOut, code := run(t, args...)
			for _, w := range c.want {
				if code != c.code || !strings.Contains(errOut, w) {
					t.Errorf("%v: exit %d %q, want %d naming %q", args, code, errOut, c.code, w)
				}
			}
		}
	}
}

// Bad region policy values are usage errors naming the flag.
func TestRegionPolicyRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--region-data-gb", "-5"}, "--region-data-gb: -5 is not a non-negative size"},
		{[]string{"--region-data-gb", "10", "--region-max-payback", "-1"}, "--region-max-payback: -1 is not a positive number of months"},
	} {
		args := append([]string{"advise", "--demo"}, c.args...)
		_, errOut, code := run(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %d naming %q", args, code, errOut, ExitUsage, c.want)
		}
	}
}

// A ledger that cannot be built leaves the report without savings lines
// and says why on stderr, never silently.
func TestReportSaysWhyItHasNoSavings(t *testing.T) {
	var out, errOut strings.Builder
	s := Streams{Out: &out, Err: &errOut, Name: "gpuwise"}
	req := app.DefaultReportRequest()
	demo := app.DefaultDemo()
	req.Source = app.Source{Demo: demo}
	res, err := app.New(time.Now).Report(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	res.Ledger, res.LedgerErr = nil, errors.New("ledger does not reconcile: test")
	if err := writeReport(s, res, render.Table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "no savings lines: ledger does not reconcile: test") {
		t.Errorf("stderr = %q, want the ledger's error", errOut.String())
	}
	if strings.Contains(out.String(), "Savings") {
		t.Errorf("report shows a savings line without a ledger:\n%s", out.String())
	}
}

// TestReportHeadlineIsAdvise: the report's Savings line is advise's
// ledger, capacity levers included, though the report releases the hourly
// series before its ledger packs (the levers' inputs are read first).
func TestReportHeadlineIsAdvise(t *testing.T) {
	l := adviseJSON(t, "--demo")
	out, errOut, code := run(t, "demo", "-o", "json")
	if code != ExitOK {
		t.Fatalf("demo: exit %d: %s", code, errOut)
	}
	var rep struct {
		Savings struct {
			Saving float64 `json:"saving_usd_month"`
		} `json:"savings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if ledger.CentsOf(rep.Savings.Saving) != ledger.CentsOf(l.SavingUSDMonth) {
		t.Errorf("report headline saves %v, advise %v", rep.Savings.Saving, l.SavingUSDMonth)
	}
}

// TestCapacityPolicyFileSteersLevers: the policy file's commitments and
// reclaim sections reach the ledger. A negotiated 50% 1-year discount
// saves more than the 30% default; reclaim limited to namespaces the demo
// does not have reclaims nothing; `generate reclaim` reads the same
// section; a bad section is an input error naming the field.
func TestCapacityPolicyFileSteersLevers(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	policy := file("policy.yaml", "commitments:\n  discount1y: 0.5\nreclaim:\n  namespaces: [\"nowhere-*\"]\n")
	lever := func(l ledger.Ledger, name string) float64 {
		for _, lr := range l.Levers {
			if lr.Name == name {
				return lr.SavingUSDMonth
			}
		}
		return 0
	}
	def, pol := adviseJSON(t, "--demo"), adviseJSON(t, "--demo", "--policy", policy)
	if lever(pol, "commit") <= lever(def, "commit") || lever(def, "reclaim") <= 0 || lever(pol, "reclaim") != 0 {
		t.Errorf("commit %v → %v (want more), reclaim %v → %v (want > 0 → 0)",
			lever(def, "commit"), lever(pol, "commit"), lever(def, "reclaim"), lever(pol, "reclaim"))
	}
	_, _, code := run(t, "generate", "reclaim", "--demo", "-d", filepath.Join(dir, "def"))
	_, _, codePol := run(t, "generate", "reclaim", "--demo", "-d", filepath.Join(dir, "pol"), "--policy", policy)
	written := func(d string) int {
		n := 0
		filepath.WalkDir(filepath.Join(dir, d), func(_ string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	if code != ExitOK || codePol != ExitOK || written("def") == 0 || written("pol") != 0 {
		t.Errorf("generate reclaim: exit %d and %d, %d files with the defaults and %d with the policy file (want some, then none)",
			code, codePol, written("def"), written("pol"))
	}
	bad := file("bad.yaml", "commitments:\n  discount1y: 1.5\n")
	for _, cmd := range [][]string{{"advise"}, {"generate", "reclaim", "-d", filepath.Join(dir, "bad")}} {
		args := append(append(append([]string{}, cmd...), "--demo", "--policy"), bad)
		if _, errOut, code := run(t, args...); code != ExitInput || !strings.Contains(errOut, "commitments.discount1y: 1.5 is outside (0, 1)") {
			t.Errorf("%v: exit %d %q, want %d naming commitments.discount1y", args, code, errOut, ExitInput)
		}
	}
}

// TestAdviseUnitCostsCSV (issue 27): `advise -o csv --csv-table unit-costs`
// writes the unit costs per serving workload and model name, the same
// figures as -o json's metrics; the flag with another format, or another
// table, is a usage error.
func TestAdviseUnitCostsCSV(t *testing.T) {
	out, errOut, code := run(t, "advise", "--demo", "-o", "csv", "--csv-table", "unit-costs")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "cluster,metric,workload,model,workloads,server_metric,cost_usd,count,per_unit_usd,partial" {
		t.Fatalf("header %q", lines[0])
	}
	js, _, code := run(t, "advise", "--demo", "-o", "json")
	if code != ExitOK {
		t.Fatal("advise -o json failed")
	}
	var l struct {
		Metrics []struct {
			Name      string `json:"name"`
			UnitCosts []struct {
				Workload, Model string
				PerUnit         float64 `json:"per_unit"`
			} `json:"unit_costs"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range l.Metrics {
		for _, u := range m.UnitCosts {
			n++
			row := fmt.Sprintf(",%s,%s,%s,", m.Name, u.Workload, u.Model)
			if !slices.ContainsFunc(lines, func(s string) bool {
				return strings.HasPrefix(s, row) && strings.Contains(s, ","+strconv.FormatFloat(u.PerUnit, 'f', -1, 64)+",")
			}) {
				t.Errorf("no CSV row %s…%v", row, u.PerUnit)
			}
		}
	}
	if n == 0 || len(lines) != n+1 {
		t.Errorf("%d unit costs in JSON, %d CSV rows", n, len(lines)-1)
	}
	for _, bad := range [][]string{{"-o", "table", "--csv-table", "unit-costs"}, {"-o", "csv", "--csv-table", "models"}} {
		if _, errOut, code := run(t, append([]string{"advise", "--demo"}, bad...)...); code != ExitUsage || !strings.Contains(errOut, "csv-table") {
			t.Errorf("advise %v: exit %d, %q; want a usage error naming --csv-table", bad, code, errOut)
		}
	}
}
