// Command checkledger reads `gpuwise advise -o json` on stdin and fails
// unless the savings ledger carries the documented fields and adds up: the
// actions' savings sum to before − after to the cent, none is negative,
// every prerequisite exists and comes first. The smoke check that `make
// test` runs on the README's advise command.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/gpuwise/gpuwise/internal/ledger"
)

func main() {
	var l ledger.Ledger
	dec := json.NewDecoder(os.Stdin)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		fail("decoding ledger: %v", err)
	}
	var sum ledger.Cents
	seen := map[string]bool{}
	for _, a := range l.Actions {
		s := ledger.CentsOf(a.SavingUSDMonth)
		if s < 0 || a.Lever == "" || a.Target == "" || a.Phase < 1 || a.Phase > 3 || a.Confidence == "" || a.Evidence == nil {
			fail("action %s is incomplete or negative: %+v", a.ID, a)
		}
		for _, p := range a.Prerequisites {
			if !seen[p] {
				fail("action %s needs %s, which does not come before it", a.ID, p)
			}
		}
		seen[a.ID] = true
		sum += s
	}
	before, after := ledger.CentsOf(l.BeforeUSDMonth), ledger.CentsOf(l.AfterUSDMonth)
	if sum != before-after || sum != ledger.CentsOf(l.SavingUSDMonth) {
		fail("actions save %s, but before %s − after %s = %s (saving_usd_month %v)", sum, before, after, before-after, l.SavingUSDMonth)
	}
	fmt.Printf("checkledger: %s: %d actions save %s of %s/month, reconciled\n", l.Source, len(l.Actions), sum, before)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "checkledger: "+format+"\n", args...)
	os.Exit(1)
}
