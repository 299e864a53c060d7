package cost

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// fakePrices prices every node at $2 per GPU-hour, $0.05 per core-hour and
// $0.01 per GiB-hour, except nodes whose instance type is "unknown".
type fakePrices struct{}

func (fakePrices) Price(n pricing.NodeSpec) (pricing.NodePrice, error) {
	if n.InstanceType == "unknown" {
		return pricing.NodePrice{}, fmt.Errorf("no price for %s", n.InstanceType)
	}
	p := pricing.NodePrice{GPUUSDPerHour: 2, CPUUSDPerCoreHour: 0.05, MemoryUSDPerGiBHour: 0.01, AsOf: "2026-01-21"}
	p.NodeUSDPerHour = 2*float64(n.GPUCount) + 0.05*n.CPUCores + 0.01*n.MemoryGiB
	return p, nil
}

const hour = 3600.0

var approx = cmpopts.EquateApprox(0, 1e-9)

// settings are both option sets, so a test changes either in one closure.
type settings struct {
	Options
	ReportOptions
}

func report(t *testing.T, s *cluster.Snapshot, mutate func(*settings)) *Report {
	t.Helper()
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	opts := settings{DefaultOptions(), DefaultReportOptions()}
	if mutate != nil {
		mutate(&opts)
	}
	a, err := Allocate(p, fakePrices{}, opts.Options)
	if err != nil {
		t.Fatalf("Allocate: %v", err)
	}
	r, err := NewReport(a, opts.ReportOptions)
	if err != nil {
		t.Fatalf("NewReport: %v", err)
	}
	return r
}

func row(t *testing.T, r *Report, key string) Row {
	t.Helper()
	for _, row := range r.Rows {
		if row.Key == key {
			return row
		}
	}
	t.Fatalf("no row %q in %v", key, r.Rows)
	return Row{}
}

// Hand-computed fixtures. Node: 1 GPU at $2/h, 4 cores at $0.05, 16 GiB at
// $0.01 → $2.36/h; window 10 h → $23.60.
func TestAllocateHandComputed(t *testing.T) {
	tests := []struct {
		name      string
		nodes     []cluster.Node
		pods      []cluster.Pod
		key       string
		wantHours Hours
		wantGPU   GPUCost
		wantCPU   float64 // CPU + memory of the row
		wantTotal Hours   // totals' hours
	}{
		{
			name:      "whole GPU held all window at 30%",
			nodes:     []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()},
			pods:      []cluster.Pod{ct.Pod("ml", "train").On("n1").Requests(1000, 4).Holds("n1/gpu0", 0.3, 10*hour).Obj()},
			key:       "ml",
			wantHours: Hours{Allocated: 10, Active: 3},
			wantGPU:   GPUCost{Active: 6, AllocatedIdle: 14},
			wantCPU:   0.05*1*10 + 0.01*4*10,
			wantTotal: Hours{Provisioned: 10, Allocated: 10, Active: 3},
		},
		{
			name:      "pod starting mid-window, idle below threshold",
			nodes:     []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()},
			pods:      []cluster.Pod{ct.Pod("nb", "jupyter").On("n1").Life(ct.At(4), time.Time{}).Holds("n1/gpu0", 0.05, 6*hour).Obj()},
			key:       "nb",
			wantHours: Hours{Allocated: 6, Active: 0.3, Idle: 6},
			wantGPU:   GPUCost{Active: 0.6, AllocatedIdle: 11.4},
			wantTotal: Hours{Provisioned: 10, Allocated: 6, Active: 0.3, Idle: 6, Unallocated: 4},
		},
		{
			name:  "MIG 3g.40gb + 2g.20gb + 1g.10gb on one H100, one slice free",
			nodes: []cluster.Node{ct.Node("n1").MIG("H100-80GB", "3g.40gb", "2g.20gb", "1g.10gb").Obj()},
			pods: []cluster.Pod{
				ct.Pod("inf", "a").On("n1").Holds("n1/gpu0/3g.40gb-0", 0.5, 10*hour).Obj(),
				ct.Pod("inf", "b").On("n1").Holds("n1/gpu0/2g.20gb-1", 0.5, 10*hour).Obj(),
				ct.Pod("inf", "c").On("n1").Holds("n1/gpu0/1g.10gb-2", 0.5, 10*hour).Obj(),
			},
			key: "inf",
			// fractions 4/8, 2/7, 1/7 → 13/14 of the GPU held.
			wantHours: Hours{Allocated: 10 * 13.0 / 14, Active: 5 * 13.0 / 14},
			wantGPU:   GPUCost{Active: 10 * 13.0 / 14, AllocatedIdle: 10 * 13.0 / 14},
			wantTotal: Hours{Provisioned: 10, Allocated: 10 * 13.0 / 14, Active: 5 * 13.0 / 14, Unallocated: 10.0 / 14},
		},
		{
			name:  "time-sliced GPU with 4 replicas and 3 pods",
			nodes: []cluster.Node{ct.Node("n1").TimeSliced("L4", 4).Obj()},
			pods: []cluster.Pod{
				ct.Pod("dev", "a").On("n1").Holds("n1/gpu0/ts-0", 1, 10*hour).Obj(),
				ct.Pod("dev", "b").On("n1").Holds("n1/gpu0/ts-1", 0, 10*hour).Obj(),
				ct.Pod("dev", "c").On("n1").Holds("n1/gpu0/ts-2", 0.2, 10*hour).Obj(),
			},
			key:       "dev",
			wantHours: Hours{Allocated: 7.5, Active: 2.5 + 0.5, Idle: 2.5},
			wantGPU:   GPUCost{Active: 6, AllocatedIdle: 9},
			wantTotal: Hours{Provisioned: 10, Allocated: 7.5, Active: 3, Idle: 2.5, Unallocated: 2.5},
		},
		{
			name:      "pod without usage series is unmeasured, not idle",
			nodes:     []cluster.Node{ct.Node("n1").GPUs(1, "A100-80GB").Obj()},
			pods:      []cluster.Pod{ct.Pod("ml", "dark").On("n1").Holds("n1/gpu0", -1, 0).Obj()},
			key:       "ml",
			wantHours: Hours{Allocated: 10, Unmeasured: 10},
			wantGPU:   GPUCost{Unmeasured: 20},
			wantTotal: Hours{Provisioned: 10, Allocated: 10, Unmeasured: 10},
		},
		{
			// docs/dra.md: a claim shared by k pods splits its GPU equally,
			// one 1/k unit per pod; a unit whose pod has not started yet is
			// unallocated, and a pod the exporter cannot attribute is
			// unmeasured, never idle.
			name:  "DRA GPU shared by three pods through one ResourceClaim",
			nodes: []cluster.Node{draShared("n1", 3)},
			pods: []cluster.Pod{
				ct.Pod("ml", "s-a").On("n1").Holds("n1/gpu-0/share-0", 0.6, 10*hour).Obj(),
				ct.Pod("ml", "s-b").On("n1").Holds("n1/gpu-0/share-1", 0, 10*hour).Obj(),
				ct.Pod("ml", "s-c").On("n1").Life(ct.At(5), time.Time{}).Holds("n1/gpu-0/share-2", -1, 0).Obj(),
			},
			key: "ml",
			// 1/3 × (10 + 10 + 5) h held; s-a active 1/3 × 0.6 × 10 h = 2 h
			// ($4), s-b idle 10/3 h, s-c unmeasured 5/3 h ($3.33); 5/3 h of
			// s-c's share before it started unallocated.
			wantHours: Hours{Allocated: 25.0 / 3, Active: 2, Idle: 10.0 / 3, Unmeasured: 5.0 / 3},
			wantGPU:   GPUCost{Active: 4, AllocatedIdle: 50.0/3 - 4 - 10.0/3, Unmeasured: 10.0 / 3},
			wantTotal: Hours{Provisioned: 10, Allocated: 25.0 / 3, Active: 2, Idle: 10.0 / 3, Unmeasured: 5.0 / 3, Unallocated: 5.0 / 3},
		},
		{
			// docs/dra.md: a MIG device one claim shares is split like a
			// shared whole GPU. 3g.40gb on an H100-80GB is max(3/7, 4/8) =
			// 1/2 of the GPU; two pods hold 1/4 each.
			name:  "DRA MIG device shared by two pods through one ResourceClaim",
			nodes: []cluster.Node{draSharedMIG("n1", 2)},
			pods: []cluster.Pod{
				ct.Pod("ml", "m-a").On("n1").Holds("n1/gpu-0-mig-3g40gb-9-0/share-0", 0.8, 10*hour).Obj(),
				ct.Pod("ml", "m-b").On("n1").Holds("n1/gpu-0-mig-3g40gb-9-0/share-1", -1, 0).Obj(),
			},
			key: "ml",
			// 1/4 × 10 h × 2 pods = 5 h held ($10 at $2): m-a active
			// 1/4 × 0.8 × 10 = 2 h ($4), its other 0.5 h allocated but
			// unused ($1; no idle hours: it is busy); m-b unmeasured 2.5 h
			// ($5); the GPU's other half (5 h) unallocated.
			wantHours: Hours{Allocated: 5, Active: 2, Unmeasured: 2.5},
			wantGPU:   GPUCost{Active: 4, AllocatedIdle: 1, Unmeasured: 5},
			wantTotal: Hours{Provisioned: 10, Allocated: 5, Active: 2, Unmeasured: 2.5, Unallocated: 5},
		},
		{
			// docs/dra.md: a HAMi vGPU costs the larger of the compute and
			// memory share its pod asked for.
			name:  "HAMi vGPUs priced from gpucores and gpumem",
			nodes: []cluster.Node{hamiNode("n1")},
			pods: []cluster.Pod{
				// max(25%, 4096/24576 MiB) = 1/4 of the GPU.
				ct.Pod("inf", "q").On("n1").Holds("n1/gpu0/ts-0", 0.5, 10*hour).Obj(),
				// max(10%, 50%) = 1/2.
				ct.Pod("inf", "h").On("n1").Holds("n1/gpu0/ts-1", 0.2, 10*hour).Obj(),
			},
			key:       "inf",
			wantHours: Hours{Allocated: 7.5, Active: 0.25*0.5*10 + 0.5*0.2*10},
			wantGPU:   GPUCost{Active: 4.5, AllocatedIdle: 15 - 4.5},
			wantTotal: Hours{Provisioned: 10, Allocated: 7.5, Active: 2.25, Unallocated: 2.5},
		},
		{
			name:      "usage covering half the held time leaves the rest unmeasured",
			nodes:     []cluster.Node{ct.Node("n1").GPUs(1, "A100-80GB").Obj()},
			pods:      []cluster.Pod{ct.Pod("ml", "gap").On("n1").Holds("n1/gpu0", 0.8, 5*hour).Obj()},
			key:       "ml",
			wantHours: Hours{Allocated: 10, Active: 4, Unmeasured: 5},
			wantGPU:   GPUCost{Active: 8, AllocatedIdle: 2, Unmeasured: 10},
			wantTotal: Hours{Provisioned: 10, Allocated: 10, Active: 4, Unmeasured: 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &cluster.Snapshot{Window: ct.Window(10), Nodes: tt.nodes, Pods: tt.pods}
			r := report(t, s, nil)
			got := row(t, r, tt.key)
			if diff := cmp.Diff(tt.wantHours, got.GPUHours, approx); diff != "" {
				t.Errorf("row hours (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantGPU, got.GPUCost, approx); diff != "" {
				t.Errorf("row GPU $ (-want +got):\n%s", diff)
			}
			if tt.wantCPU != 0 && math.Abs(got.CPUCost+got.MemoryCost-tt.wantCPU) > 1e-9 {
				t.Errorf("row CPU+memory $ = %v, want %v", got.CPUCost+got.MemoryCost, tt.wantCPU)
			}
			if diff := cmp.Diff(tt.wantTotal, r.Totals.GPUHours, approx); diff != "" {
				t.Errorf("total hours (-want +got):\n%s", diff)
			}
			if math.Abs(r.Totals.NodeCost-23.6) > 1e-9 {
				t.Errorf("node cost = %v, want 23.60", r.Totals.NodeCost)
			}
		})
	}
}

func TestUnmeasuredUtilizationIsNil(t *testing.T) {
	s := &cluster.Snapshot{Window: ct.Window(10),
		Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "A100-80GB").Obj()},
		Pods:  []cluster.Pod{ct.Pod("ml", "dark").On("n1").Holds("n1/gpu0", -1, 0).Obj()}}
	r := report(t, s, nil)
	if u := row(t, r, "ml").GPUUtilization; u != nil {
		t.Errorf("utilization of an unmeasured pod = %v, want nil (n/a)", *u)
	}
	if !hasNote(r, "unmeasured") {
		t.Errorf("no unmeasured note in %v", r.Notes)
	}
}

func TestUnpricedNodeKeepsHoursWithoutDollars(t *testing.T) {
	s := &cluster.Snapshot{Window: ct.Window(10),
		Nodes: []cluster.Node{
			ct.Node("priced").GPUs(1, "H100-80GB").Obj(),
			ct.Node("onprem").Instance("unknown", cluster.OnDemand).GPUs(2, "A100-80GB").Obj(),
		},
		Pods: []cluster.Pod{ct.Pod("ml", "a").On("onprem").Holds("onprem/gpu0", 0.5, 10*hour).Obj()}}
	r := report(t, s, nil)
	if got, want := r.Totals.NodeCost, 23.6; math.Abs(got-want) > 1e-9 {
		t.Errorf("node cost = %v, want %v (the unpriced node adds nothing)", got, want)
	}
	if got := r.Totals.UnpricedGPUHours; got != 20 {
		t.Errorf("unpriced GPU-hours = %v, want 20", got)
	}
	ml := row(t, r, "ml")
	if !ml.Unpriced || ml.GPUHours.Allocated != 10 || ml.TotalCost != 0 {
		t.Errorf("row ml = %+v, want unpriced with 10 allocated GPU-hours and no dollars", ml)
	}
	if !hasNote(r, "no price") {
		t.Errorf("no unpriced warning in %v", r.Notes)
	}
}

func hasNote(r *Report, substr string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n.Text, substr) {
			return true
		}
	}
	return false
}

func TestSMUtilizationBesideEngineActivity(t *testing.T) {
	p := ct.Pod("ml", "train").On("n1").Holds("n1/gpu0", 0.8, 10*hour).Obj()
	p.GPUs[0].SMActive = &usage.Activity{}
	p.GPUs[0].SMActive.Add(0.3, 10*hour)
	s := &cluster.Snapshot{Window: ct.Window(10),
		Nodes: []cluster.Node{ct.Node("n1").GPUs(2, "H100-80GB").Obj()},
		Pods:  []cluster.Pod{p, ct.Pod("ml", "other").On("n1").Holds("n1/gpu1", 0.5, 10*hour).Obj()}}
	r := report(t, s, nil)
	// Only the first pod reports SM activity, so SM utilization is its 30%,
	// while engine utilization averages both pods: (0.8 + 0.5) / 2.
	if sm := r.Totals.SMUtilization; sm == nil || math.Abs(*sm-0.3) > 1e-12 {
		t.Errorf("SM utilization = %v, want 0.3", sm)
	}
	if u := r.Totals.GPUUtilization; u == nil || math.Abs(*u-0.65) > 1e-12 {
		t.Errorf("GPU utilization = %v, want 0.65", u)
	}
}

// draShared is a node whose one H100 a DRA claim shares among k pods, as
// internal/kube builds it: k time-slice units of the DRA device.
func draShared(name string, k int) cluster.Node {
	n := ct.Node(name).GPUs(1, "H100-80GB").Obj()
	g := &n.GPUs[0]
	g.Allocator, g.Driver, g.Pool, g.Sharing, g.Replicas, g.Units = cluster.DRA, cluster.DRAGPUDriver, name, cluster.TimeSlicing, k, nil
	for i := range k {
		g.Units = append(g.Units, cluster.Unit{ID: fmt.Sprintf("%s/gpu-0/share-%d", name, i), Kind: cluster.TimeSlice,
			Device: "gpu-0", Claim: "ml/shared"})
	}
	return n
}

// draSharedMIG is a node whose one H100 publishes, through NVIDIA's DRA
// driver, a 3g.40gb MIG device one claim holds for k pods.
func draSharedMIG(name string, k int) cluster.Node {
	n := ct.Node(name).GPUs(1, "H100-80GB").Obj()
	g := &n.GPUs[0]
	g.Allocator, g.Driver, g.Pool, g.Sharing, g.Units = cluster.DRA, cluster.DRAGPUDriver, name, cluster.MIG, nil
	for i := range k {
		g.Units = append(g.Units, cluster.Unit{ID: fmt.Sprintf("%s/gpu-0-mig-3g40gb-9-0/share-%d", name, i), Kind: cluster.MIGSlice,
			Profile: "3g.40gb", ComputeSlices: 3, MemorySlices: 4, Device: "gpu-0-mig-3g40gb-9-0", Claim: "ml/shared-mig"})
	}
	return n
}

// hamiNode is a node whose one A10 (24 GiB) HAMi splits into 4 vGPUs,
// two of them asked for: 25% of the cores and 4096 MiB; 10% of the
// cores and 50% of the memory.
func hamiNode(name string) cluster.Node {
	n := ct.Node(name).TimeSliced("A10", 4).Obj()
	g := &n.GPUs[0]
	g.Sharing, g.MemoryMiB = cluster.HAMi, 24576
	g.Units[0].CoresPercent, g.Units[0].MemoryMiB = 25, 4096
	g.Units[1].CoresPercent, g.Units[1].MemoryPercent = 10, 50
	return n
}
