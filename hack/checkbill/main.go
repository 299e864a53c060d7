// Command checkbill reads `gpuwise report --bill FILE -o json` on stdin
// and fails unless its reconciliation holds: gpuwise's cost of the billed
// node-hours equals the bill's to the cent, the report's node cost is the
// matched bill plus the unbilled hours, and the bill's window total is
// matched + CPU nodes + unmatched. The smoke check of the simulated bill.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/gpuwise/gpuwise/internal/billing"
)

func main() {
	var in struct {
		Totals struct {
			NodeCost float64 `json:"node_cost_usd"`
		} `json:"totals"`
		Reconciliation *billing.Reconciliation `json:"reconciliation"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("reading report: %v", err)
	}
	rc := in.Reconciliation
	if rc == nil {
		fail("the report has no reconciliation (was --bill given?)")
	}
	cents := func(v float64) float64 { return math.Round(v * 100) }
	if cents(rc.GPUwiseMatchedUSD) != cents(rc.MatchedUSD) {
		fail("gpuwise prices the billed node-hours at %.2f, the bill at %.2f", rc.GPUwiseMatchedUSD, rc.MatchedUSD)
	}
	if cents(in.Totals.NodeCost) != cents(rc.MatchedUSD+rc.UnbilledNodeUSD) {
		fail("node cost %.2f is not matched %.2f + unbilled %.2f", in.Totals.NodeCost, rc.MatchedUSD, rc.UnbilledNodeUSD)
	}
	if cents(rc.BillUSD) != cents(rc.MatchedUSD+rc.CPUNodesUSD+rc.UnmatchedBillUSD) {
		fail("bill %.2f is not matched %.2f + CPU nodes %.2f + unmatched %.2f", rc.BillUSD, rc.MatchedUSD, rc.CPUNodesUSD, rc.UnmatchedBillUSD)
	}
	if rc.MatchedUSD <= 0 || len(rc.Nodes) == 0 {
		fail("nothing matched")
	}
	fmt.Printf("checkbill: bill $%.2f, matched $%.2f to the cent, %d node(s) without a bill line, %d unmatched GPU line(s)\n",
		rc.BillUSD, rc.MatchedUSD, len(rc.NodesWithoutBill), len(rc.UnmatchedGPULines))
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "checkbill: "+format+"\n", args...)
	os.Exit(1)
}
