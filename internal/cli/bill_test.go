package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/shareddata"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// demoBill writes the simulated cluster's snapshot and bill.
func demoBill(t *testing.T, format string) (snap, bill string) {
	t.Helper()
	dir := t.TempDir()
	snap, bill = filepath.Join(dir, "demo.snap"), filepath.Join(dir, "bill-"+format+".csv")
	if _, errOut, code := run(t, "demo", "-o", "json", "--save", snap, "--save-bill", bill, "--bill-format", format); code != ExitOK {
		t.Fatalf("demo --save-bill: exit %d: %s", code, errOut)
	}
	return snap, bill
}

// pricingCommands are the commands that price anything: each must read
// --bill and change its answer by it (the simulated bill runs p5 nodes
// under a savings plan, below the catalog).
var pricingCommands = [][]string{
	{"report", "-o", "json"}, {"advise", "-o", "json"}, {"plan", "-o", "json"}, {"recommend", "-o", "json"},
	{"inventory", "-o", "json"}, {"audit", "-o", "json"}, {"generate", "quota"},
}

// dollarless price (their savings, in recommend's ledger) but print no
// dollars of their own (generate resources' patch headers quote the
// savings ledger's): the bill must be read (a missing one fails them).
var dollarless = [][]string{{"generate", "resources"}, {"generate", "vpa"}, {"generate", "timeslicing"}, {"generate", "mig"}}

// priceless price nothing: --bill is refused, never ignored.
var priceless = [][]string{{"generate", "nodepool"}, {"generate", "spot"}, {"generate", "reclaim"}, {"generate", "autoscaling"}}

// TestEveryPricingCommandReadsTheBill fails when a command that prices
// anything ignores --bill: a missing bill file must fail it (exit 3,
// naming the file) and a real bill must change its output; and every
// command with --prices must have --bill.
func TestEveryPricingCommandReadsTheBill(t *testing.T) {
	_, bill := demoBill(t, "focus")
	missing := filepath.Join(t.TempDir(), "no-such-bill.csv")
	for _, c := range pricingCommands {
		name := strings.Join(c, " ")
		args := append(append([]string{}, c...), "--demo")
		plain, errOut, code := run(t, args...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		billed, errOut, code := run(t, append(args, "--bill", bill)...)
		if code != ExitOK {
			t.Fatalf("%s --bill: exit %d: %s", name, code, errOut)
		}
		if plain == billed {
			t.Errorf("%s: --bill did not change the output: the bill is ignored", name)
		}
		_, errOut, code = run(t, append(args, "--bill", missing)...)
		if code != ExitInput || !strings.Contains(errOut, "no-such-bill.csv") {
			t.Errorf("%s --bill MISSING: exit %d (want %d), stderr %q", name, code, ExitInput, errOut)
		}
	}
	for _, c := range dollarless {
		args := append(append([]string{}, c...), "--demo")
		if _, errOut, code := run(t, append(args, "--bill", bill)...); code != ExitOK {
			t.Errorf("%s --bill: exit %d: %s", strings.Join(c, " "), code, errOut)
		}
		if _, errOut, code := run(t, append(args, "--bill", missing)...); code != ExitInput || !strings.Contains(errOut, "no-such-bill.csv") {
			t.Errorf("%s --bill MISSING: exit %d (want %d), stderr %q", strings.Join(c, " "), code, ExitInput, errOut)
		}
	}
	for _, c := range priceless {
		args := append(append([]string{}, c...), "--demo", "--bill", bill)
		if _, errOut, code := run(t, args...); code != ExitUsage || !strings.Contains(errOut, "prices nothing") {
			t.Errorf("%s --bill: exit %d (want %d, refused), stderr %q", strings.Join(c, " "), code, ExitUsage, errOut)
		}
	}
	// serve loads the bill before it listens: a missing one stops it.
	if _, errOut, code := run(t, "serve", "--demo", "--listen", "127.0.0.1:0", "--bill", missing); code != ExitInput || !strings.Contains(errOut, "no-such-bill.csv") {
		t.Errorf("serve --bill MISSING: exit %d, stderr %q", code, errOut)
	}
	root, _ := newCommand(Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("prices") != nil && c.Flags().Lookup("bill") == nil {
			t.Errorf("%s has --prices but no --bill", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// report --from SNAP --bill FILE reconciles the simulator's ground truth
// to the cent: the node missing from the bill, the orphan instance, the
// savings plan's unused part, and gpuwise's cost of the billed hours
// equal to the bill's.
func TestReportReconcilesTheSimulatedBill(t *testing.T) {
	for _, format := range []string{"focus", "cur2"} {
		snap, bill := demoBill(t, format)
		out, errOut, code := run(t, "report", "--from", snap, "--bill", bill, "-o", "json")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", format, code, errOut)
		}
		var rep struct {
			Totals struct {
				NodeCost float64 `json:"node_cost_usd"`
			} `json:"totals"`
			Reconciliation struct {
				BillUSD             float64  `json:"bill_usd"`
				MatchedUSD          float64  `json:"matched_usd"`
				GPUwiseMatchedUSD   float64  `json:"gpuwise_matched_usd"`
				DifferenceUSD       float64  `json:"difference_usd"`
				UnbilledNodeUSD     float64  `json:"unbilled_node_usd"`
				GPUwiseNodeUSD      float64  `json:"gpuwise_node_usd"`
				UnusedCommitmentUSD float64  `json:"unused_commitment_usd"`
				NodesWithoutBill    []string `json:"nodes_without_bill"`
				UnmatchedGPULines   []struct {
					ResourceID string `json:"resource_id"`
				} `json:"unmatched_gpu_lines"`
			} `json:"reconciliation"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		rc := rep.Reconciliation
		if rc.BillUSD == 0 || rc.MatchedUSD == 0 {
			t.Fatalf("%s: no reconciliation in the JSON: %s", format, out[:min(len(out), 300)])
		}
		if cents(rc.GPUwiseMatchedUSD) != cents(rc.MatchedUSD) || cents(rc.DifferenceUSD) != 0 {
			t.Errorf("%s: gpuwise %.4f vs bill %.4f for the billed node-hours", format, rc.GPUwiseMatchedUSD, rc.MatchedUSD)
		}
		if cents(rc.GPUwiseNodeUSD) != cents(rep.Totals.NodeCost) {
			t.Errorf("%s: reconciliation's node cost %.4f is not the report's %.4f", format, rc.GPUwiseNodeUSD, rep.Totals.NodeCost)
		}
		if cents(rc.GPUwiseNodeUSD) != cents(rc.MatchedUSD+rc.UnbilledNodeUSD) {
			t.Errorf("%s: node cost %.4f is not matched %.4f + unbilled %.4f", format, rc.GPUwiseNodeUSD, rc.MatchedUSD, rc.UnbilledNodeUSD)
		}
		if len(rc.UnmatchedGPULines) != 1 || rc.UnmatchedGPULines[0].ResourceID != sim.OrphanInstance {
			t.Errorf("%s: unmatched GPU lines %+v, want the orphan %s", format, rc.UnmatchedGPULines, sim.OrphanInstance)
		}
		if rc.UnusedCommitmentUSD <= 0 {
			t.Errorf("%s: no unused commitment", format)
		}
		if !strings.Contains(strings.Join(rc.NodesWithoutBill, ","), "train-h100-2") {
			t.Errorf("%s: nodes without bill %v lack the node the simulator left out", format, rc.NodesWithoutBill)
		}
		if format == "focus" && !strings.Contains(out, `"price_origin": "bill"`) {
			t.Errorf("no node priced from the bill")
		}
	}
}

func cents(v float64) int64 { return int64(v*100 + 0.5*sign(v)) }

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

func TestBillInspect(t *testing.T) {
	sample := "../../../shared/data/focus/focus_1.0_sample.csv"
	shareddata.Need(t, sample)
	out, errOut, code := run(t, "bill", "inspect", sample, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var in struct {
		Rows      int64 `json:"rows"`
		Providers []struct {
			Provider string `json:"provider"`
			Rows     int64  `json:"rows"`
		} `json:"providers"`
	}
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatal(err)
	}
	if in.Rows != 1000 || len(in.Providers) != 3 {
		t.Errorf("inspect: %+v", in)
	}
	table, _, code := run(t, "bill", "inspect", sample)
	if code != ExitOK || !strings.Contains(table, "Microsoft") || !strings.Contains(table, "1000 rows") {
		t.Errorf("table: exit %d\n%s", code, table)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	writeFile(t, bad, "ProviderName,ServiceName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BillingPeriodStart,BilledCost,EffectiveCost,ListCost\nAWS,EC2,Usage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,2026-11-01T00:00:00Z,NaN,1,1\n")
	if _, errOut, code := run(t, "bill", "inspect", bad); code != ExitInput || !strings.Contains(errOut, "row 1, column BilledCost") {
		t.Errorf("bad bill: exit %d, %q", code, errOut)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every report format carries the reconciliation with the JSON's
// numbers: the table, markdown and HTML print the bill, the matched, the
// commitment coverage and the unused commitment to the cent, the orphan
// instance and the commitment's id; the CSV is its own table
// (--csv-table reconciliation) whose sums equal the JSON's.
func TestReconciliationInEveryFormat(t *testing.T) {
	snap, bill := demoBill(t, "focus")
	out, errOut, code := run(t, "report", "--from", snap, "--bill", bill, "-o", "json")
	if code != ExitOK {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	var rep struct {
		Reconciliation struct {
			BillUSD             float64  `json:"bill_usd"`
			MatchedUSD          float64  `json:"matched_usd"`
			CommittedUSD        float64  `json:"committed_usd"`
			CommitmentCoverage  *float64 `json:"commitment_coverage"`
			UnusedCommitmentUSD float64  `json:"unused_commitment_usd"`
			UnusedCommitments   []struct {
				ID string `json:"id"`
			} `json:"unused_commitments"`
			Nodes []struct {
				Node    string  `json:"node"`
				BillUSD float64 `json:"bill_usd"`
			} `json:"nodes"`
		} `json:"reconciliation"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	rc := rep.Reconciliation
	if rc.CommitmentCoverage == nil || len(rc.UnusedCommitments) == 0 || rc.UnusedCommitmentUSD <= 0 {
		t.Fatalf("the simulated bill has a savings plan: coverage %v, unused %v", rc.CommitmentCoverage, rc.UnusedCommitments)
	}
	usd := func(v float64) string { return "$" + commas(v) }
	want := []string{usd(rc.BillUSD), usd(rc.MatchedUSD), usd(rc.CommittedUSD), usd(rc.UnusedCommitmentUSD), sim.OrphanInstance, rc.UnusedCommitments[0].ID}
	for _, f := range []string{"table", "markdown", "html"} {
		text, errOut, code := run(t, "report", "--from", snap, "--bill", bill, "-o", f)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", f, code, errOut)
		}
		plain := strings.NewReplacer(`\$`, "$", `\_`, "_", "&#39;", "'", "<wbr>", "").Replace(text)
		for _, w := range want {
			if !strings.Contains(plain, w) {
				t.Errorf("-o %s lacks %q", f, w)
			}
		}
	}
	text, errOut, code := run(t, "report", "--from", snap, "--bill", bill, "-o", "csv", "--csv-table", "reconciliation")
	if code != ExitOK {
		t.Fatalf("csv: exit %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	var nodes float64
	var nodeRows int
	for _, r := range recs[1:] {
		v, _ := strconv.ParseFloat(r[7], 64)
		switch r[0] {
		case "summary":
			got[r[1]] = v
		case "node":
			nodes += v
			nodeRows++
		}
	}
	if cents(got["bill"]) != cents(rc.BillUSD) || cents(got["matched"]) != cents(rc.MatchedUSD) || cents(got["committed"]) != cents(rc.CommittedUSD) ||
		cents(got["unused_commitment"]) != cents(rc.UnusedCommitmentUSD) || cents(nodes) != cents(rc.MatchedUSD) || nodeRows != len(rc.Nodes) {
		t.Errorf("csv summary %v, nodes $%.2f over %d rows; json bill %.2f matched %.2f committed %.2f unused %.2f, %d nodes",
			got, nodes, nodeRows, rc.BillUSD, rc.MatchedUSD, rc.CommittedUSD, rc.UnusedCommitmentUSD, len(rc.Nodes))
	}
	for _, bad := range [][]string{
		{"report", "--from", snap, "-o", "csv", "--csv-table", "reconciliation"},
		{"report", "--from", snap, "--bill", bill, "-o", "json", "--csv-table", "reconciliation"},
		{"report", "--from", snap, "--bill", bill, "-o", "csv", "--csv-table", "nodes"},
	} {
		if _, errOut, code := run(t, bad...); code != ExitUsage || !strings.Contains(errOut, "csv-table") {
			t.Errorf("%v: exit %d (want %d), %q", bad, code, ExitUsage, errOut)
		}
	}
}

// commas writes dollars as the human formats do: $1,234.56.
func commas(v float64) string {
	s := strconv.FormatFloat(math.Round(v*100)/100, 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + "." + frac
}

// TestReportWithABillIsTheSameEachRun: the reconciliation summed the
// bill's resources and nodes in map order, so the same snapshot and bill
// gave different last digits (six runs, six different JSON documents).
func TestReportWithABillIsTheSameEachRun(t *testing.T) {
	snap, bill := demoBill(t, "focus")
	var first string
	for i := range 6 {
		out, errOut, code := run(t, "report", "--from", snap, "--bill", bill, "-o", "json")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if i == 0 {
			first = out
		} else if out != first {
			t.Fatalf("run %d printed a different document than run 1", i+1)
		}
	}
}
