package inventory

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// h100 is a p5.48xlarge as GPU feature discovery labels it.
func h100(name string) *clustertest.NodeBuilder {
	return clustertest.Node(name).Instance("p5.48xlarge", cluster.OnDemand).Resources(192, 2048).
		Label(lblProduct, "NVIDIA-H100-80GB-HBM3").Label(lblCount, "8").Label(lblMemory, "81559")
}

// operatorPod is a GPU operator DaemonSet's pod on node.
func operatorPod(ds, node string) cluster.Pod {
	return clustertest.Pod("gpu-operator", ds+"-"+node).On(node).Owner("DaemonSet", ds).Obj()
}

// view is what a test reads of one node.
type view struct {
	Model, Sharing, MIG      string
	GPUs, Units, InUse, Reps int
	Expected                 int
	Plugin, GFD              Status
	Components               []string
	Checks                   []string
}

func viewOf(n Node, fs []Finding) view {
	v := view{Model: n.GPUModel, Sharing: n.Sharing, MIG: n.MIG.Strategy, GPUs: n.GPUs, Units: n.Units, InUse: n.UnitsInUse,
		Reps: n.TimeSliceReplicas, Plugin: n.DevicePlugin.Status, GFD: n.FeatureDiscovery.Status}
	if n.ExpectedGPUs != nil {
		v.Expected = *n.ExpectedGPUs
	}
	for _, c := range n.Components {
		v.Components = append(v.Components, c.Name+"="+string(c.Status))
	}
	for _, f := range fs {
		if f.Node == n.Name {
			v.Checks = append(v.Checks, f.Check)
		}
	}
	return v
}

func TestBuildNodes(t *testing.T) {
	tests := []struct {
		name string
		node cluster.Node
		pods []cluster.Pod
		want view
	}{{
		name: "exclusive H100s with the operator's device plugin, two GPUs in use",
		node: h100("h").GPUs(8, "H100-80GB").Obj(),
		pods: []cluster.Pod{operatorPod("nvidia-device-plugin-daemonset", "h"), operatorPod("nvidia-dcgm-exporter", "h"),
			clustertest.Pod("ml", "train").On("h").Holds("h/gpu0", 0.5, 3600).Holds("h/gpu1", 0.5, 3600).Obj()},
		want: view{Model: "H100-80GB", Sharing: "exclusive", MIG: "none", GPUs: 8, Units: 8, InUse: 2, Expected: 8,
			Plugin: Running, GFD: Present, Components: []string{"dcgm-exporter=running", "device-plugin=running"}},
	}, {
		name: "a GPU product label without allocatable GPUs is a finding",
		node: h100("bare").Obj(),
		want: view{Model: "H100-80GB", Sharing: "none", MIG: "none", Expected: 8, Plugin: Missing, GFD: Present,
			Checks: []string{CheckNotAdvertised}},
	}, {
		name: "a device plugin pod that registers nothing",
		node: h100("silent").Obj(),
		pods: []cluster.Pod{operatorPod("nvidia-device-plugin-daemonset", "silent")},
		want: view{Model: "H100-80GB", Sharing: "none", MIG: "none", Expected: 8, Plugin: Running, GFD: Present,
			Components: []string{"device-plugin=running"}, Checks: []string{CheckNotAdvertised}},
	}, {
		name: "a GPU instance type without labels or resources is found from the catalog",
		node: clustertest.Node("p5").Instance("p5.48xlarge", cluster.Spot).Label("kubernetes.io/os", "linux").Obj(),
		want: view{Model: "H100-80GB", Sharing: "none", MIG: "none", Expected: 8, Plugin: Missing, GFD: Missing,
			Checks: []string{CheckNotAdvertised}},
	}, {
		name: "the EFA device plugin is not a GPU device plugin",
		node: h100("efa").Obj(),
		pods: []cluster.Pod{operatorPod("aws-efa-k8s-device-plugin-daemonset", "efa")},
		want: view{Model: "H100-80GB", Sharing: "none", MIG: "none", Expected: 8, Plugin: Missing, GFD: Present,
			Checks: []string{CheckNotAdvertised}},
	}, {
		name: "GPUs without feature discovery labels",
		node: clustertest.Node("nolabels").Instance("p5.48xlarge", cluster.OnDemand).Label("kubernetes.io/os", "linux").GPUs(8, "").Obj(),
		want: view{Model: "H100-80GB", Sharing: "exclusive", MIG: "none", GPUs: 8, Units: 8, Expected: 8, Plugin: Present, GFD: Missing,
			Checks: []string{CheckNoFeatureDiscovery}},
	}, {
		name: "seven of eight GPUs advertised",
		node: h100("seven").GPUs(7, "H100-80GB").Obj(),
		want: view{Model: "H100-80GB", Sharing: "exclusive", MIG: "none", GPUs: 7, Units: 7, Expected: 8, Plugin: Present, GFD: Present,
			Checks: []string{CheckGPUsMissing}},
	}, {
		name: "MIG mixed strategy with a whole GPU beside it; GPU counts are not checked on MIG nodes",
		node: clustertest.Node("mig").Instance("p4de.24xlarge", cluster.OnDemand).Label(lblProduct, "NVIDIA-A100-SXM4-80GB").
			Label(lblStrategy, "mixed").Label(lblMIGConfig, "custom").Label(lblMIGState, "success").Label(lblCount, "2").
			MIG("A100-80GB", "1g.10gb", "3g.40gb", "1g.10gb").GPUs(1, "A100-80GB").Obj(),
		pods: []cluster.Pod{clustertest.Pod("ml", "serve").On("mig").Holds("mig/gpu0/3g.40gb-1", 0.2, 60).Obj()},
		want: view{Model: "A100-80GB", Sharing: "exclusive+mig", MIG: "mixed", GPUs: 2, Units: 4, InUse: 1, Expected: 8, Plugin: Present, GFD: Present},
	}, {
		name: "a failed MIG configuration and paused operands",
		node: clustertest.Node("migfail").Instance("p4de.24xlarge", cluster.OnDemand).Label(lblProduct, "NVIDIA-A100-SXM4-80GB").
			Label(lblStrategy, "mixed").Label(lblMIGConfig, "custom").Label(lblMIGState, "failed").
			Label(lblDeploy+"device-plugin", "paused-for-mig-change").Label(lblDeploy+"dcgm-exporter", "paused-for-mig-change").
			MIG("A100-80GB", "7g.80gb").Obj(),
		want: view{Model: "A100-80GB", Sharing: "mig", MIG: "mixed", GPUs: 1, Units: 1, Expected: 8, Plugin: Paused, GFD: Present,
			Components: []string{"dcgm-exporter=paused", "device-plugin=paused"},
			Checks:     []string{CheckMIGFailed, CheckPaused}},
	}, {
		name: "time-slicing with four replicas, one in use",
		node: clustertest.Node("l4").Instance("g6.xlarge", cluster.OnDemand).Label(lblProduct, "NVIDIA-L4").Label(lblCount, "1").
			Label(lblSharing, "time-slicing").TimeSliced("L4", 4).Obj(),
		pods: []cluster.Pod{clustertest.Pod("dev", "nb").On("l4").Holds("l4/gpu0/ts-2", 0.1, 60).Obj()},
		want: view{Model: "L4", Sharing: "time-slicing", MIG: "none", GPUs: 1, Units: 4, InUse: 1, Reps: 4, Expected: 1, Plugin: Present, GFD: Present},
	}, {
		name: "MPS is told apart from time-slicing by the sharing-strategy label",
		node: clustertest.Node("mps").Instance("g6.xlarge", cluster.OnDemand).Label(lblProduct, "NVIDIA-L4").
			Label(lblSharing, "mps").TimeSliced("L4", 2).Obj(),
		want: view{Model: "L4", Sharing: "mps", MIG: "none", GPUs: 1, Units: 2, Reps: 2, Expected: 1, Plugin: Present, GFD: Present},
	}, {
		name: "the operator should run dcgm-exporter here but no pod does; the driver is disabled",
		node: h100("noexp").Label(lblDeploy+"dcgm-exporter", "true").Label(lblDeploy+"driver", "false").GPUs(8, "H100-80GB").Obj(),
		want: view{Model: "H100-80GB", Sharing: "exclusive", MIG: "none", GPUs: 8, Units: 8, Expected: 8, Plugin: Present, GFD: Present,
			Components: []string{"dcgm-exporter=missing", "driver=disabled"}, Checks: []string{CheckOperandMissing}},
	}, {
		name: "a source without node labels leaves feature discovery unknown",
		node: clustertest.Node("prom").Instance("p5.48xlarge", cluster.OnDemand).GPUs(8, "H100-80GB").Obj(),
		want: view{Model: "H100-80GB", Sharing: "exclusive", MIG: "none", GPUs: 8, Units: 8, Expected: 8, Plugin: Present, GFD: Unknown},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inv := build(t, []cluster.Node{tt.node}, tt.pods)
			if len(inv.Nodes) != 1 {
				t.Fatalf("%d nodes listed, want 1", len(inv.Nodes))
			}
			if diff := cmp.Diff(tt.want, viewOf(inv.Nodes[0], inv.Findings)); diff != "" {
				t.Errorf("node (-want +got):\n%s", diff)
			}
			checkTotals(t, inv)
		})
	}
}

func build(t *testing.T, nodes []cluster.Node, pods []cluster.Pod) *Inventory {
	t.Helper()
	s := &cluster.Snapshot{Window: clustertest.Window(24), Source: "test", Nodes: nodes, Pods: pods}
	c := pricing.Embedded()
	return Build(clustertest.Prepare(t, s), c, c)
}

// checkTotals: the summary and the totals add up, in GPUs and dollars.
func checkTotals(t *testing.T, inv *Inventory) {
	t.Helper()
	var gpus, units int
	var usd float64
	for _, g := range inv.Summary {
		gpus, units = gpus+g.GPUs, units+g.Units
		if g.USDPerHour != nil {
			usd += *g.USDPerHour
		}
	}
	tt := inv.Totals
	if gpus != tt.GPUs+tt.UnadvertisedGPUs || units != tt.Units {
		t.Errorf("summary has %d GPUs and %d units; totals %d+%d GPUs, %d units", gpus, units, tt.GPUs, tt.UnadvertisedGPUs, tt.Units)
	}
	if tt.USDPerHour != nil && math.Abs(usd-*tt.USDPerHour) > 1e-9 {
		t.Errorf("summary $%v/h, totals $%v/h", usd, *tt.USDPerHour)
	}
	if tt.Findings != len(inv.Findings) {
		t.Errorf("totals say %d findings, %d listed", tt.Findings, len(inv.Findings))
	}
}

func TestPriceAndItsSource(t *testing.T) {
	onprem := h100("dgx").Instance("dgx-h100", cluster.OnDemand).GPUs(8, "H100-80GB").Obj()
	onprem.Cloud, onprem.Region = "", ""
	inv := build(t, []cluster.Node{h100("p5").GPUs(8, "H100-80GB").Obj(), onprem}, nil)
	got := map[string]*Price{}
	for _, n := range inv.Nodes {
		got[n.Name] = n.Price
		if (n.Price == nil) != (n.Unpriced != "") {
			t.Errorf("node %s: price %v with unpriced reason %q; want exactly one", n.Name, n.Price, n.Unpriced)
		}
	}
	if p := got["p5"]; p == nil || p.Origin != pricing.OriginCatalog || p.AsOf == "" || p.NodeUSDPerHour != 55.04 ||
		!strings.Contains(p.Source, "p5.48xlarge") {
		t.Errorf("p5 price %+v; want the catalog's $55.04 with its date", p)
	}
	if got["dgx"] != nil || !strings.Contains(inv.Nodes[0].Unpriced, "override") {
		t.Errorf("on-prem node: price %+v, reason %q; want unpriced saying to add an override", got["dgx"], inv.Nodes[0].Unpriced)
	}
	if inv.Totals.PricedNodes != 1 || inv.Totals.UnpricedNodes != 1 || *inv.Totals.USDPerHour != 55.04 ||
		*inv.Totals.USDPerMonth != 55.04*pricing.HoursPerMonth {
		t.Errorf("totals %+v: want one priced node at $55.04/h, one unpriced", inv.Totals)
	}
	checkTotals(t, inv)
}

func TestWithoutPricesEveryNodeIsUnpriced(t *testing.T) {
	s := &cluster.Snapshot{Window: clustertest.Window(1), Nodes: []cluster.Node{h100("a").GPUs(8, "H100-80GB").Obj()}}
	inv := Build(clustertest.Prepare(t, s), nil, nil)
	if n := inv.Nodes[0]; n.Price != nil || n.Unpriced == "" || inv.Totals.USDPerHour != nil || inv.Summary[0].USDPerHour != nil {
		t.Errorf("without prices: node price %+v (%q), totals %v, group %v; want unpriced everywhere, never $0",
			n.Price, n.Unpriced, inv.Totals.USDPerHour, inv.Summary[0].USDPerHour)
	}
}

func TestNodesOutsideTheInventory(t *testing.T) {
	gone := h100("gone").GPUs(8, "H100-80GB").Life(clustertest.At(1), clustertest.At(2)).Obj()
	cpu := clustertest.Node("cpu").Instance("m7i.4xlarge", cluster.OnDemand).Label("kubernetes.io/os", "linux").Obj()
	inv := build(t, []cluster.Node{gone, cpu, h100("kept").GPUs(8, "H100-80GB").Obj()}, nil)
	if len(inv.Nodes) != 1 || inv.Nodes[0].Name != "kept" || inv.Totals.DeletedNodes != 1 || inv.Totals.OtherNodes != 1 {
		t.Errorf("nodes %d (%+v), deleted %d, other %d; want only kept listed, one deleted and one CPU node counted",
			len(inv.Nodes), inv.Totals, inv.Totals.DeletedNodes, inv.Totals.OtherNodes)
	}
	if !strings.Contains(strings.Join(inv.Notes, "\n"), "1 GPU node(s) were deleted") {
		t.Errorf("notes %q do not count the deleted node", inv.Notes)
	}
}

func TestPodsThatEndedDoNotHoldUnits(t *testing.T) {
	done := clustertest.Pod("ml", "done").On("h").Life(clustertest.At(1), clustertest.At(2)).Holds("h/gpu0", 1, 3600).Obj()
	later := clustertest.Pod("ml", "later").On("h").Life(clustertest.At(3), clustertest.At(30)).Holds("h/gpu1", 1, 3600).Obj()
	inv := build(t, []cluster.Node{h100("h").GPUs(2, "H100-80GB").Obj()}, []cluster.Pod{done, later})
	if n := inv.Nodes[0]; n.UnitsInUse != 1 || n.Layout[0].UnitsInUse != 0 || n.Layout[1].UnitsInUse != 1 {
		t.Errorf("units in use %d (layout %+v); want only the pod still running at the end", n.UnitsInUse, n.Layout)
	}
}

// A GPU held by a pod of a workload Kueue admitted says so (the mechanism
// it was allocated through stays the device plugin's).
func TestKueueAdmittedGPUs(t *testing.T) {
	queued := clustertest.Pod("ml", "train-0").On("h").Life(clustertest.At(1), time.Time{}).Holds("h/gpu0", 1, 3600).Obj()
	other := clustertest.Pod("ml", "api").On("h").Life(clustertest.At(1), time.Time{}).Holds("h/gpu1", 1, 3600).Obj()
	s := &cluster.Snapshot{Window: clustertest.Window(24), Source: "test", Nodes: []cluster.Node{h100("h").GPUs(2, "H100-80GB").Obj()},
		Pods: []cluster.Pod{queued, other}, Kueue: &cluster.KueueInfo{Workloads: []cluster.QueuedWorkload{{Namespace: "ml", Name: "job-train",
			Created: clustertest.At(0), Admitted: clustertest.At(1), GPUs: map[string]int64{"nvidia.com/gpu": 1}, Pods: []string{"ml/train-0"}}}}}
	c := pricing.Embedded()
	inv := Build(clustertest.Prepare(t, s), c, c)
	l := inv.Nodes[0].Layout
	if l[0].Admission != cluster.ViaKueue || l[0].Mechanism != cluster.ViaDevicePlugin || l[1].Admission != "" {
		t.Errorf("layout %+v: want GPU 0 kueue-admitted through the device plugin, GPU 1 not", l)
	}
}

func TestSummaryGroupsByModelAndSharing(t *testing.T) {
	mig := clustertest.Node("mig").Instance("p4de.24xlarge", cluster.OnDemand).Label(lblProduct, "NVIDIA-A100-SXM4-80GB").
		MIG("A100-80GB", "3g.40gb", "3g.40gb").GPUs(1, "A100-80GB").Obj()
	inv := build(t, []cluster.Node{h100("a").GPUs(8, "H100-80GB").Obj(), h100("b").GPUs(8, "H100-80GB").Obj(), h100("bare").Obj(), mig}, nil)
	type row struct {
		Model, Sharing            string
		Nodes, GPUs, Units, Unpri int
	}
	var got []row
	for _, g := range inv.Summary {
		got = append(got, row{g.GPUModel, g.Sharing, g.Nodes, g.GPUs, g.Units, g.UnpricedNodes})
	}
	want := []row{
		{"A100-80GB", "exclusive", 1, 1, 1, 0}, {"A100-80GB", "mig", 1, 1, 2, 0},
		{"H100-80GB", "exclusive", 2, 16, 16, 0}, {"H100-80GB", NotAdvertised, 1, 8, 0, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	// The MIG node's price is shared over its two groups by GPU count.
	a100 := *inv.Summary[0].USDPerHour + *inv.Summary[1].USDPerHour
	if math.Abs(a100-27.44705) > 1e-9 || math.Abs(*inv.Summary[0].USDPerHour-a100/2) > 1e-9 {
		t.Errorf("A100 groups $%v and $%v/h; want the node's $27.44705 split in half", *inv.Summary[0].USDPerHour, *inv.Summary[1].USDPerHour)
	}
	checkTotals(t, inv)
}

func TestFindingsNameTheFix(t *testing.T) {
	inv := build(t, []cluster.Node{h100("silent").Obj()}, []cluster.Pod{operatorPod("nvidia-device-plugin-daemonset", "silent")})
	if len(inv.Findings) != 1 {
		t.Fatalf("findings %+v, want one", inv.Findings)
	}
	f := inv.Findings[0]
	for _, want := range []string{"nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3", "registers nothing", "paid for idle"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message %q does not say %q", f.Message, want)
		}
	}
	if !strings.Contains(f.Fix, "kubectl -n gpu-operator logs nvidia-device-plugin-daemonset-silent") {
		t.Errorf("fix %q does not point at the device plugin's log", f.Fix)
	}
}

// A node whose GPUs a DRA driver publishes needs no device plugin: its
// layout says dra, and the inventory lists the drivers and classes.
func TestDRAAndHAMiInventory(t *testing.T) {
	t.Parallel()
	dra := clustertest.Node("dra-a").Resources(96, 1152).Instance("p4d.24xlarge", cluster.OnDemand).GPUs(8, "A100-40GB").Obj()
	for i := range dra.GPUs {
		dra.GPUs[i].Allocator, dra.GPUs[i].Driver = cluster.DRA, cluster.DRAGPUDriver
	}
	hami := clustertest.Node("hami-a").Resources(32, 128).Instance("g5.12xlarge", cluster.OnDemand).TimeSliced("A10G", 10).Obj()
	hami.GPUs[0].Sharing = cluster.HAMi
	s := &cluster.Snapshot{Window: clustertest.Window(24), Source: "test", Nodes: []cluster.Node{dra, hami},
		Pods: []cluster.Pod{clustertest.Pod("ml", "train").On("dra-a").Holds("dra-a/gpu0", 0.5, 3600).Obj()},
		DRA: &cluster.DRAInfo{Drivers: []cluster.DRADriver{{Name: cluster.DRAGPUDriver, Devices: 8}},
			DeviceClasses: []cluster.DeviceClass{{Name: cluster.DRAGPUClass}, {Name: cluster.DRAMIGClass}},
			Claims:        []cluster.ResourceClaim{{Namespace: "ml", Name: "train-gpu", Units: []string{"dra-a/gpu0"}, Pods: []string{"ml/train"}}}}}
	s.Pods[0].Claims = []string{"ml/train-gpu"}
	c := pricing.Embedded()
	inv := Build(clustertest.Prepare(t, s), c, c)
	var mech []string
	for _, n := range inv.Nodes {
		for _, l := range n.Layout {
			mech = append(mech, n.Name+" "+l.Sharing+" "+l.Mechanism)
		}
		if n.Name == "dra-a" && (n.DevicePlugin.Status != Present || !strings.Contains(n.DevicePlugin.Evidence, "DRA")) {
			t.Errorf("DRA node's device plugin %+v, want present through DRA", n.DevicePlugin)
		}
	}
	want := []string{}
	for range 8 {
		want = append(want, "dra-a exclusive dra")
	}
	if diff := cmp.Diff(append(want, "hami-a hami hami"), mech); diff != "" {
		t.Errorf("layouts (-want +got):\n%s", diff)
	}
	if inv.DRA == nil || inv.DRA.GPUClaims != 1 || len(inv.DRA.DeviceClasses) != 2 || inv.DRA.Drivers[0].Name != "gpu.nvidia.com" {
		t.Errorf("DRA section %+v", inv.DRA)
	}
	for _, f := range inv.Findings {
		if f.Node == "dra-a" {
			t.Errorf("finding on the DRA node: %+v", f)
		}
	}
}
