package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// byClusterFiles are two clusters' snapshots (the demo and seed 7).
func byClusterFiles(t *testing.T) (a, b string) {
	t.Helper()
	dir := t.TempDir()
	a, b = filepath.Join(dir, "a.json.gz"), filepath.Join(dir, "b.json.gz")
	run(t, "demo", "--save", a, "-o", "json")
	run(t, "demo", "--seed", "7", "--save", b, "-o", "json")
	return a, b
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := run(t, args...)
	if code != ExitOK {
		t.Fatalf("gpuwise %v: exit %d: %s", args, code, stderr)
	}
	return out
}

func toCents(v float64) int64 { return int64(math.Round(v * 100)) }

// advise --by cluster (issue 26.4): each cluster's own ledger, the same as
// advise of that cluster alone, in every format; the sum is the clusters'
// to the cent; CSV is one table with a cluster column.
func TestAdviseByCluster(t *testing.T) {
	t.Parallel()
	a, b := byClusterFiles(t)
	from := []string{"advise", "--from", "prod=" + a, "--from", "staging=" + b, "--by", "cluster"}
	var merged struct {
		Saving   float64 `json:"saving_usd_month"`
		Clusters []struct {
			Cluster string `json:"cluster"`
			Ledger  struct {
				Saving  float64 `json:"saving_usd_month"`
				Actions []struct {
					ID     string  `json:"id"`
					Saving float64 `json:"saving_usd_month"`
				} `json:"actions"`
			} `json:"ledger"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, append(from, "-o", "json")...)), &merged); err != nil {
		t.Fatal(err)
	}
	if len(merged.Clusters) != 2 {
		t.Fatalf("%d cluster ledgers, want 2", len(merged.Clusters))
	}
	var sum int64
	own := map[string]string{"prod": a, "staging": b}
	for _, c := range merged.Clusters {
		var alone struct {
			Saving float64 `json:"saving_usd_month"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, "advise", "--from", own[c.Cluster], "-o", "json")), &alone); err != nil {
			t.Fatal(err)
		}
		if toCents(c.Ledger.Saving) != toCents(alone.Saving) {
			t.Errorf("cluster %s saves $%.2f by cluster, $%.2f alone", c.Cluster, c.Ledger.Saving, alone.Saving)
		}
		sum += toCents(c.Ledger.Saving)
	}
	if sum != toCents(merged.Saving) || sum <= 0 {
		t.Errorf("the clusters' savings sum to %d cents, the merged answer says $%.2f", sum, merged.Saving)
	}
	rows, err := csv.NewReader(strings.NewReader(mustRun(t, append(from, "-o", "csv")...))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || rows[0][0] != "cluster" || rows[0][1] != "id" {
		t.Fatalf("CSV header %v: want cluster, id, …", rows[0])
	}
	perCluster := map[string]int64{}
	for _, r := range rows[1:] {
		if r[4] == "groundwork" { // days 0-30 groundwork: saves nothing, not an action
			continue
		}
		v, err := strconv.ParseFloat(r[8], 64)
		if err != nil {
			t.Fatalf("row %v: %v", r, err)
		}
		perCluster[r[0]] += toCents(v)
	}
	for _, c := range merged.Clusters {
		var want int64
		for _, x := range c.Ledger.Actions {
			want += toCents(x.Saving)
		}
		if perCluster[c.Cluster] != want || want == 0 {
			t.Errorf("cluster %s: CSV actions sum to %d cents, JSON %d", c.Cluster, perCluster[c.Cluster], want)
		}
	}
	html := mustRun(t, append(from, "-o", "html")...)
	for _, want := range []string{"Cluster prod", "Cluster staging", "All 2 clusters"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if n := strings.Count(html, "<html"); n != 1 {
		t.Errorf("HTML has %d pages, want one", n)
	}
	one := mustRun(t, "advise", "--from", a, "--by", "cluster")
	if !strings.Contains(one, "CLUSTER a\n") || !strings.Contains(one, "ALL 1 CLUSTER(S)") {
		t.Errorf("advise --by cluster on one cluster's snapshot: no section for it:\n%.600s", one)
	}
	if _, stderr, code := run(t, "advise", "--from", a, "--by", "namespace"); code != ExitUsage || !strings.Contains(stderr, "--by cluster") {
		t.Errorf("advise --by namespace: exit %d, %s; want a usage error naming --by cluster", code, stderr)
	}
}

// plan --by cluster (issue 26.4): each cluster packed alone, its own
// sections and totals, and their sum; the same savings as the merged plan
// and as each cluster's plan alone, to the cent.
func TestPlanByCluster(t *testing.T) {
	t.Parallel()
	a, b := byClusterFiles(t)
	from := []string{"plan", "--from", "prod=" + a, "--from", "staging=" + b}
	type plan struct {
		Savings *float64 `json:"savings_usd_per_month"`
		Moves   []struct {
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"moves"`
	}
	var by struct {
		Savings  *float64 `json:"savings_usd_per_month"`
		Moves    int      `json:"moves"`
		Clusters []struct {
			Cluster string `json:"cluster"`
			Plan    plan   `json:"plan"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, append(from, "--by", "cluster", "-o", "json")...)), &by); err != nil {
		t.Fatal(err)
	}
	var whole plan
	if err := json.Unmarshal([]byte(mustRun(t, append(from, "-o", "json")...)), &whole); err != nil {
		t.Fatal(err)
	}
	if len(by.Clusters) != 2 || by.Savings == nil || whole.Savings == nil {
		t.Fatalf("by cluster: %d plans, savings %v; whole plan savings %v", len(by.Clusters), by.Savings, whole.Savings)
	}
	if toCents(*by.Savings) != toCents(*whole.Savings) {
		t.Errorf("by cluster saves $%.2f, the merged plan $%.2f", *by.Savings, *whole.Savings)
	}
	own := map[string]string{"prod": a, "staging": b}
	var sum int64
	moves := 0
	for _, c := range by.Clusters {
		var alone plan
		if err := json.Unmarshal([]byte(mustRun(t, "plan", "--from", own[c.Cluster], "-o", "json")), &alone); err != nil {
			t.Fatal(err)
		}
		if toCents(*c.Plan.Savings) != toCents(*alone.Savings) {
			t.Errorf("cluster %s saves $%.2f by cluster, $%.2f alone", c.Cluster, *c.Plan.Savings, *alone.Savings)
		}
		for _, m := range c.Plan.Moves { // a cluster's own plan names its own nodes
			if strings.Contains(m.From, "/") || strings.Contains(m.To, "/") {
				t.Errorf("cluster %s: move %s -> %s names a merged node", c.Cluster, m.From, m.To)
			}
		}
		sum += toCents(*c.Plan.Savings)
		moves += len(c.Plan.Moves)
	}
	if sum != toCents(*by.Savings) || moves != by.Moves {
		t.Errorf("sum: %d cents and %d moves; the answer says $%.2f and %d", sum, moves, *by.Savings, by.Moves)
	}
	text := mustRun(t, append(from, "--by", "cluster")...)
	for _, want := range []string{"CLUSTER PROD\n", "CLUSTER STAGING\n", "ALL 2 CLUSTER(S)"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	rows, err := csv.NewReader(bytes.NewReader([]byte(mustRun(t, append(from, "--by", "cluster", "-o", "csv")...)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		seen[r[0]] = true
	}
	if rows[0][0] != "cluster" || !seen["prod"] || !seen["staging"] || len(seen) != 2 {
		t.Errorf("CSV: header %v, clusters %v", rows[0], seen)
	}
	for _, f := range []string{"markdown", "html", "yaml", "wide"} {
		if out := mustRun(t, append(from, "--by", "cluster", "-o", f)...); !strings.Contains(strings.ToLower(out), "staging") {
			t.Errorf("-o %s names no cluster staging", f)
		}
	}
}
