package app

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/pricing"
)

// The simulated FOCUS bill, summed straight from its CSV cells (compute
// usage rows of the cluster's GPU instances and of the scale sets its
// Azure GPU nodes belong to), is the reconciliation's matched cost to
// the cent, and the report's node cost is that plus the catalog's price
// of the hours no bill line covers; the bill prices some nodes below the
// catalog (the savings plan), so the total is not the catalog's.
func TestReportMatchesTheBillsOwnSums(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	dir := t.TempDir()
	bill := filepath.Join(dir, "bill.csv")
	req := demoReport()
	req.SaveBill = bill
	plain, err := a.Report(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	req = demoReport()
	req.Prices = MustLoadPrices("", []string{bill})
	res, err := a.Report(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rc := res.Reconciliation
	if rc == nil {
		t.Fatal("no reconciliation with a bill")
	}
	ids := map[string]bool{}
	for _, n := range res.Snapshot.Nodes() {
		if !n.HasGPUs() || n.ProviderID == "" {
			continue
		}
		switch id := strings.ToLower(n.ProviderID); n.Cloud {
		case "aws":
			ids[id[strings.LastIndexByte(id, '/')+1:]] = true
		case "azure": // billed per scale set
			set, _, _ := strings.Cut(strings.TrimPrefix(id, "azure://"), "/virtualmachines/")
			ids[set] = true
		}
	}
	f, err := os.Open(bill)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var sum float64
	for _, r := range recs[1:] {
		id := strings.ToLower(r[col["ResourceId"]])
		if r[col["ChargeCategory"]] != "Usage" || r[col["ServiceCategory"]] != "Compute" || r[col["CommitmentDiscountStatus"]] == "Unused" {
			continue
		}
		if ids[id] {
			v, err := strconv.ParseFloat(r[col["EffectiveCost"]], 64)
			if err != nil {
				t.Fatal(err)
			}
			sum += v
		}
	}
	if math.Round(sum*100) != math.Round(rc.MatchedUSD*100) {
		t.Errorf("matched %.4f, the bill's own rows sum to %.4f", rc.MatchedUSD, sum)
	}
	node := res.Report.Totals.NodeCost
	if math.Round(node*100) != math.Round((rc.MatchedUSD+rc.UnbilledNodeUSD)*100) {
		t.Errorf("node cost %.4f != matched %.4f + unbilled %.4f", node, rc.MatchedUSD, rc.UnbilledNodeUSD)
	}
	if plain.Report.Totals.NodeCost <= node {
		t.Errorf("the savings plan should lower the node cost: catalog %.2f, bill %.2f", plain.Report.Totals.NodeCost, node)
	}
	var fromBill int
	for _, n := range rc.Nodes {
		if n.PriceOrigin == pricing.OriginBill {
			fromBill++
			if n.PriceAsOf == "" || !strings.Contains(n.PriceSource, "bill.csv") {
				t.Errorf("%s: price source %q as of %q", n.Node, n.PriceSource, n.PriceAsOf)
			}
		}
	}
	if fromBill == 0 || fromBill != len(rc.Nodes)-len(rc.NodesWithoutBill) {
		t.Errorf("%d of %d nodes priced from the bill, %d without one", fromBill, len(rc.Nodes), len(rc.NodesWithoutBill))
	}
}
