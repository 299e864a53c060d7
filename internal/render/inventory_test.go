package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/inventory"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// inventorySample has a node of every kind the inventory shows: whole
// GPUs with the operator's pods, a MIG mixed node whose configuration
// failed, a time-sliced node, a GPU node advertising nothing, one with a
// GPU gone, and an on-prem node nobody priced.
func inventorySample(t *testing.T) *inventory.Inventory {
	t.Helper()
	gfd := func(b *clustertest.NodeBuilder, product, count string) *clustertest.NodeBuilder {
		return b.Label("nvidia.com/gpu.product", product).Label("nvidia.com/gpu.count", count)
	}
	h100 := func(name string) *clustertest.NodeBuilder {
		return gfd(clustertest.Node(name).Instance("p5.48xlarge", cluster.OnDemand).Resources(192, 2048), "NVIDIA-H100-80GB-HBM3", "8")
	}
	mig := gfd(clustertest.Node("a100-mig").Instance("p4de.24xlarge", cluster.Spot).Resources(96, 1152), "NVIDIA-A100-SXM4-80GB", "1").
		Label("nvidia.com/mig.strategy", "mixed").Label("nvidia.com/mig.config", "custom-a100").Label("nvidia.com/mig.config.state", "failed").
		MIG("A100-80GB", "3g.40gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb").MIG("A100-80GB", "7g.80gb").Obj()
	ts := gfd(clustertest.Node("l4-ts").Instance("g6.xlarge", cluster.OnDemand), "NVIDIA-L4", "1").
		Label("nvidia.com/gpu.sharing-strategy", "time-slicing").TimeSliced("L4", 4).Obj()
	onprem := h100("dgx-1").Instance("dgx-h100", "").GPUs(8, "H100-80GB").Obj()
	onprem.Cloud, onprem.Region = "", ""
	op := func(ds, node string) cluster.Pod {
		return clustertest.Pod("gpu-operator", ds+"-"+node).On(node).Owner("DaemonSet", ds).Obj()
	}
	s := &cluster.Snapshot{Window: clustertest.Window(24), Source: "fixture",
		Nodes: []cluster.Node{h100("h100-a").Label("nvidia.com/gpu.deploy.driver", "false").GPUs(8, "H100-80GB").Obj(),
			h100("h100-bare").Obj(), h100("h100-seven").GPUs(7, "H100-80GB").Obj(), mig, ts, onprem},
		Pods: []cluster.Pod{op("nvidia-device-plugin-daemonset", "h100-a"), op("nvidia-dcgm-exporter", "h100-a"),
			op("nvidia-device-plugin-daemonset", "h100-bare"),
			clustertest.Pod("ml", "train").On("h100-a").Holds("h100-a/gpu0", 0.9, 60).Holds("h100-a/gpu1", 0.9, 60).Obj(),
			clustertest.Pod("ml", "serve").On("a100-mig").Holds("a100-mig/gpu0/3g.40gb-0", 0.4, 60).Obj(),
			clustertest.Pod("dev", "nb").On("l4-ts").Holds("l4-ts/gpu0/ts-1", 0.1, 60).Obj()},
		Notes: []string{"fixture note"}}
	c := pricing.Embedded()
	return inventory.Build(clustertest.Prepare(t, s), c, c)
}

func TestInventoryGolden(t *testing.T) {
	inv := inventorySample(t)
	tests := []struct {
		file   string
		format Format
		opts   Options
	}{
		{"inventory.txt", Table, Options{}}, {"inventory-80.txt", Table, Options{Width: 80}},
		{"inventory-wide.txt", Wide, Options{Width: 80}}, {"inventory.json", JSON, Options{}},
		{"inventory.yaml", YAML, Options{}}, {"inventory.csv", CSV, Options{}},
		{"inventory.md", Markdown, Options{}}, {"inventory.html", HTML, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var got bytes.Buffer
			if err := Inventory(&got, inv, tt.format, tt.opts); err != nil {
				t.Fatalf("Inventory: %v", err)
			}
			checkGolden(t, filepath.Join("testdata", tt.file), got.Bytes())
		})
	}
}

// Every format names every node and never prices the unpriced one at $0.
func TestInventoryFormatsCarryEveryNode(t *testing.T) {
	inv := inventorySample(t)
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Inventory(&b, inv, f, Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, n := range inv.Nodes {
			if !strings.Contains(b.String(), n.Name) {
				t.Errorf("%s lacks node %s", f, n.Name)
			}
		}
		if f != JSON && f != YAML && f != CSV && !strings.Contains(b.String(), "unpriced") {
			t.Errorf("%s does not say the on-prem node is unpriced", f)
		}
	}
	if err := Inventory(&bytes.Buffer{}, inv, SARIF, Options{}); err == nil {
		t.Error("inventory as SARIF: no error")
	}
}

func TestInventoryJSONRoundTrips(t *testing.T) {
	inv := inventorySample(t)
	var b bytes.Buffer
	if err := Inventory(&b, inv, JSON, Options{}); err != nil {
		t.Fatal(err)
	}
	var back inventory.Inventory
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*inv, back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}

// The CSV has one row per node under the documented header; an unpriced
// node's dollars are empty, not 0.
func TestInventoryCSV(t *testing.T) {
	inv := inventorySample(t)
	var b bytes.Buffer
	if err := Inventory(&b, inv, CSV, Options{}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(inventoryCSVHeader, rows[0]); diff != "" || len(rows) != len(inv.Nodes)+1 {
		t.Fatalf("%d rows; header (-want +got):\n%s", len(rows), diff)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, r := range rows[1:] {
		if r[col["node"]] == "dgx-1" && (r[col["usd_per_hour"]] != "" || r[col["priced"]] != "false" || r[col["unpriced_reason"]] == "") {
			t.Errorf("unpriced node row %q: want empty dollars, priced=false and the reason", r)
		}
	}
}
