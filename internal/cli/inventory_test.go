package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	if inv.Totals.Nodes != 20 || inv.Totals.DeletedNodes != 1 || inv.Totals.UnpricedNodes != 1 {
		t.Errorf("totals %+v: want the 20 GPU nodes alive at the end (16 NVIDIA, 1 DRA, 1 HAMi, 1 AMD, 1 Neuron), 1 deleted, 1 unpriced", inv.Totals)
	}
	if n := by["train-dra-1"]; n.GPUs != 8 || n.Units != 9 {
		t.Errorf("DRA node: %d units on %d GPUs, want 9 on 8 (gpu-2 shared by two pods through one claim)", n.Units, n.GPUs)
	}
	if n := by["dev-hami-1"]; n.GPUs != 4 || n.Units != 40 {
		t.Errorf("HAMi node: %d units on %d GPUs, want 40 vGPUs on 4", n.Units, n.GPUs)
	}
	// The AMD and Neuron nodes: their vendor, priced from the catalog, and
	// no NVIDIA feature discovery asked of them.
	for name, want := range map[string]struct {
		vendor, kind string
		usd          float64
		gfd          inventory.Status
	}{
		"serve-mi300x-1": {"amd", "gpu", 48, inventory.Present},
		"train-trn1-1":   {"aws-neuron", "neuron-device", 21.5, inventory.NotApplicable},
	} {
		n := by[name]
		if n.Vendor != want.vendor || n.DeviceKind != want.kind || n.Price == nil || n.Price.NodeUSDPerHour != want.usd ||
			n.FeatureDiscovery.Status != want.gfd || n.Findings != 0 {
			t.Errorf("node %s: vendor %q kind %q price %+v GFD %s, %d findings; want %+v and no finding", name, n.Vendor, n.DeviceKind,
				n.Price, n.FeatureDiscovery.Status, n.Findings, want)
		}
	}
	// The summary names each model's vendor (issue 28.4).
	for _, g := range inv.Summary {
		want := map[string]string{"MI300X": "amd", "Trainium": "aws-neuron"}[g.GPUModel]
		if want == "" {
			want = "nvidia"
		}
		if g.Vendor != want {
			t.Errorf("summary group %s/%s: vendor %q, want %q", g.GPUModel, g.Sharing, g.Vendor, want)
		}
	}
}

func TestInventoryRefusesBadFlags(t *testing.T) {
	_, errOut, code := run(t, "inventory", "--demo", "--from", "x.json.gz", "-o", "sarif")
	if code != ExitUsage || !strings.Contains(errOut, "one source at a time") || !strings.Contains(errOut, `"sarif"`) {
		t.Errorf("exit %d: %s; want a usage error listing both problems", code, errOut)
	}
}

// Each node says where its price came from: a --prices rule's own price,
// a rule's discount on the catalog (with the catalog's date), or the
// catalog itself.
func TestInventoryPriceOrigins(t *testing.T) {
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	rules := "prices:\n  - match: {instanceType: dgx-a100-640gb}\n    gpuUSDPerHour: 1.5\n" +
		"  - match: {cloud: aws}\n    discount: 0.2\n"
	if err := os.WriteFile(prices, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "inventory", "--demo", "--prices", prices, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var inv inventory.Inventory
	if err := json.Unmarshal([]byte(out), &inv); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range inv.Nodes {
		if n.Price == nil {
			t.Errorf("%s is unpriced: %s", n.Name, n.Unpriced)
			continue
		}
		got[n.Name] = n.Price.Origin + " " + n.Price.AsOf
	}
	want := map[string]string{"onprem-dgx-1": "override ", "train-h100-1": "catalog-discount 2026-01-21", "serve-h100-1": "catalog 2025-05-28"}
	for node, w := range want {
		if got[node] != w {
			t.Errorf("%s price origin %q, want %q", node, got[node], w)
		}
	}
	if inv.Totals.UnpricedNodes != 0 {
		t.Errorf("%d unpriced nodes with the on-prem rule", inv.Totals.UnpricedNodes)
	}
}
