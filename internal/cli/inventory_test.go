package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/inventory"
	"github.com/gpuwise/gpuwise/internal/render"
)

func TestInventoryGolden(t *testing.T) {
	for _, f := range render.Formats {
		t.Run(string(f), func(t *testing.T) {
			out, errOut, code := run(t, "inventory", "--demo", "-o", string(f))
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "inventory."+string(f), out)
		})
	}
}

// The demo's inventory matches the simulated cluster: every GPU node
// alive at the end, its MIG and time-sliced nodes, the on-prem node
// unpriced with the reason, and the totals adding up.
func TestInventoryOfTheDemo(t *testing.T) {
	out, errOut, code := run(t, "inventory", "--demo", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var inv inventory.Inventory
	if err := json.Unmarshal([]byte(out), &inv); err != nil {
		t.Fatal(err)
	}
	by := map[string]inventory.Node{}
	for _, n := range inv.Nodes {
		by[n.Name] = n
	}
	if n := by["mig-a100-1"]; n.MIG.Strategy != "mixed" || n.Sharing != "mig" || n.Units <= n.GPUs {
		t.Errorf("MIG node %+v: want the mixed strategy with more units than GPUs", n.MIG)
	}
	if n := by["dev-l4-1"]; n.TimeSliceReplicas != 4 || n.Units != 4*n.GPUs {
		t.Errorf("time-sliced node: %d replicas, %d units on %d GPUs", n.TimeSliceReplicas, n.Units, n.GPUs)
	}
	if n := by["onprem-dgx-1"]; n.Price != nil || !strings.Contains(n.Unpriced, "override") {
		t.Errorf("on-prem node price %+v, reason %q: want unpriced, saying to add an override", n.Price, n.Unpriced)
	}
	if inv.Totals.Nodes != 16 || inv.Totals.DeletedNodes != 1 || inv.Totals.UnpricedNodes != 1 {
		t.Errorf("totals %+v: want the 16 GPU nodes alive at the end, 1 deleted, 1 unpriced", inv.Totals)
	}
}

func TestInventoryRefusesBadFlags(t *testing.T) {
	_, errOut, code := run(t, "inventory", "--demo", "--from", "x.json.gz", "-o", "sarif")
	if code != ExitUsage || !strings.Contains(errOut, "one source at a time") || !strings.Contains(errOut, `"sarif"`) {
		t.Errorf("exit %d: %s; want a usage error listing both problems", code, errOut)
	}
}
