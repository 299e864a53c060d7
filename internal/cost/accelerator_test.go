package cost

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// TestAcceleratorUnitsHandComputed prices one AMD and one Neuron unit
// from the embedded catalog by hand (docs/accelerators.md):
//
// Azure Standard_ND96isr_MI300X_v5, eastus2: $48/h for 8 MI300X, 96
// vCPU, 1,900 GiB. CPU and memory at the reference rates: 96 × 0.031611 +
// 1900 × 0.004237 = $11.084956/h (under half the price), so each GPU is
// (48 − 11.084956) / 8 = $4.6143805/h. One GPU held 10 h at 40 %: 10
// GPU-hours, 4 active; $46.143805, of which $18.457522 active.
//
// AWS trn1.32xlarge, us-east-1: $21.50/h for 16 Trainium devices, 128
// vCPU, 512 GiB: 128 × 0.031611 + 512 × 0.004237 = $6.215552/h, so each
// device is (21.5 − 6.215552) / 16 = $0.955278/h. Two devices held 10 h
// at 75 %: 20 device-hours, 15 active; $19.10556, of which $14.32917
// active; at 3 % (under the 5 % idle threshold) the 20 hours are idle.
func TestAcceleratorUnitsHandComputed(t *testing.T) {
	amd := ct.Node("mi300x-1").Resources(96, 1900).Instance("Standard_ND96isr_MI300X_v5", cluster.OnDemand).GPUs(8, "MI300X").Obj()
	amd.Cloud, amd.Region = "azure", "eastus2"
	trn := ct.Node("trn1-1").Resources(128, 512).Instance("trn1.32xlarge", cluster.OnDemand).GPUs(16, "Trainium").Obj()
	trn.Cloud, trn.Region = "aws", "us-east-1"
	const amdGPU, trnDevice = (48 - (96*0.031611 + 1900*0.004237)) / 8, (21.5 - (128*0.031611 + 512*0.004237)) / 16
	if math.Abs(amdGPU-4.6143805) > 1e-9 || math.Abs(trnDevice-0.955278) > 1e-9 {
		t.Fatalf("hand arithmetic: %v %v", amdGPU, trnDevice)
	}
	tests := []struct {
		name      string
		pod       cluster.Pod
		key       string
		wantHours Hours
		wantGPU   GPUCost
	}{
		{"one MI300X at 40%", ct.Pod("infer", "llm").On("mi300x-1").Holds("mi300x-1/gpu0", 0.4, 10*hour).Obj(), "infer",
			Hours{Allocated: 10, Active: 4}, GPUCost{Active: 4 * amdGPU, AllocatedIdle: 6 * amdGPU}},
		{"two Trainium devices at 75%", ct.Pod("train", "llama").On("trn1-1").Holds("trn1-1/gpu0", 0.75, 10*hour).
			Holds("trn1-1/gpu1", 0.75, 10*hour).Obj(), "train",
			Hours{Allocated: 20, Active: 15}, GPUCost{Active: 15 * trnDevice, AllocatedIdle: 5 * trnDevice}},
		{"two Trainium devices at 3%: idle", ct.Pod("train", "stuck").On("trn1-1").Holds("trn1-1/gpu0", 0.03, 10*hour).
			Holds("trn1-1/gpu1", 0.03, 10*hour).Obj(), "train",
			Hours{Allocated: 20, Active: 0.6, Idle: 20}, GPUCost{Active: 0.6 * trnDevice, AllocatedIdle: 19.4 * trnDevice}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.pod
			vendorRequests(&p)
			s := &cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{amd, trn}, Pods: []cluster.Pod{p}}
			pr, err := cluster.Prepare(s)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Allocate(pr, pricing.Embedded(), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReport(a, DefaultReportOptions())
			if err != nil {
				t.Fatal(err)
			}
			got := row(t, r, tt.key)
			if diff := cmp.Diff(tt.wantHours, got.GPUHours, approx); diff != "" {
				t.Errorf("hours (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantGPU, got.GPUCost, approx); diff != "" {
				t.Errorf("GPU $ (-want +got):\n%s", diff)
			}
			if err := r.Reconcile(); err != nil {
				t.Error(err)
			}
			// Both nodes for 10 h: $480 + $215.
			if math.Abs(r.Totals.NodeCost-695) > 1e-9 {
				t.Errorf("node cost %v, want 695", r.Totals.NodeCost)
			}
		})
	}
}

// vendorRequests moves a fixture pod's nvidia.com/gpu asks to its node's
// vendor resource, as the kube adapter reads them.
func vendorRequests(p *cluster.Pod) {
	c := &p.Containers[0]
	n := c.GPURequests["nvidia.com/gpu"]
	res := cluster.ResAMDGPU
	if p.Node == "trn1-1" {
		res = cluster.ResNeuron
	}
	c.GPURequests = map[string]int64{res: n}
}

// TestNeuronCoreSharesHandComputed bills NeuronCores as shares of their
// Neuron device (docs/accelerators.md): a trn1.32xlarge in us-east-1
// whose device plugin advertises 32 aws.amazon.com/neuroncore beside 16
// devices, each device offered as 2 NeuronCore units of ½ device. A
// device-hour is $0.955278 (TestAcceleratorUnitsHandComputed), so over 10 h:
//
//   - serve asks 1 NeuronCore (nc0) at 60 %: ½ × 10 = 5 device-hours,
//     3 active; $4.77639, of which $2.865834 active.
//   - batch asks 3 NeuronCores (nc1 on device 0, nc2 and nc3 on device
//     1), unmeasured: 15 device-hours, $14.32917 unmeasured.
//   - train asks one whole device (both cores of device 2) at 75 %: 10
//     device-hours, 7.5 active; $9.55278.
//
// The node's 160 device-hours less the 30 held leave 130 unallocated,
// $124.18614; the node's $215 splits into those GPU dollars and its
// CPU and memory.
func TestNeuronCoreSharesHandComputed(t *testing.T) {
	trn := ct.Node("trn1-1").Resources(128, 512).Instance("trn1.32xlarge", cluster.OnDemand).GPUs(16, "Trainium").Obj()
	trn.Cloud, trn.Region = "aws", "us-east-1"
	for i := range trn.GPUs {
		g := &trn.GPUs[i]
		g.Sharing, g.Replicas = cluster.NeuronCores, 2
		g.Units = []cluster.Unit{
			{ID: cluster.NeuronCoreUnitID(trn.Name, i, 2*i), Kind: cluster.NeuronCoreUnit},
			{ID: cluster.NeuronCoreUnitID(trn.Name, i, 2*i+1), Kind: cluster.NeuronCoreUnit}}
	}
	const device = (21.5 - (128*0.031611 + 512*0.004237)) / 16
	cores := func(p cluster.Pod, res string, n int64) cluster.Pod {
		p.Containers[0].GPURequests = map[string]int64{res: n}
		return p
	}
	pods := []cluster.Pod{
		cores(ct.Pod("serve", "infer").On("trn1-1").Holds("trn1-1/gpu0/nc0", 0.6, 10*hour).Obj(), cluster.ResNeuronCore, 1),
		cores(ct.Pod("batch", "embed").On("trn1-1").Holds("trn1-1/gpu0/nc1", -1, 0).Holds("trn1-1/gpu1/nc2", -1, 0).
			Holds("trn1-1/gpu1/nc3", -1, 0).Obj(), cluster.ResNeuronCore, 3),
		cores(ct.Pod("train", "llama").On("trn1-1").Holds("trn1-1/gpu2/nc4", 0.75, 10*hour).
			Holds("trn1-1/gpu2/nc5", 0.75, 10*hour).Obj(), cluster.ResNeuron, 1),
	}
	s := &cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{trn}, Pods: pods}
	pr, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Allocate(pr, pricing.Embedded(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReport(a, DefaultReportOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		key   string
		hours Hours
		gpu   GPUCost
	}{
		{"serve", Hours{Allocated: 5, Active: 3}, GPUCost{Active: 3 * device, AllocatedIdle: 2 * device}},
		{"batch", Hours{Allocated: 15, Unmeasured: 15}, GPUCost{Unmeasured: 15 * device}},
		{"train", Hours{Allocated: 10, Active: 7.5}, GPUCost{Active: 7.5 * device, AllocatedIdle: 2.5 * device}},
	} {
		got := row(t, r, tt.key)
		if diff := cmp.Diff(tt.hours, got.GPUHours, approx); diff != "" {
			t.Errorf("%s hours (-want +got):\n%s", tt.key, diff)
		}
		if diff := cmp.Diff(tt.gpu, got.GPUCost, approx); diff != "" {
			t.Errorf("%s GPU $ (-want +got):\n%s", tt.key, diff)
		}
	}
	if got := row(t, r, "serve").GPUCost.Allocated(); math.Abs(got-4.77639) > 1e-6 {
		t.Errorf("serve's NeuronCore: $%v, want $4.77639", got)
	}
	if math.Abs(r.Totals.GPUHours.Unallocated-130) > 1e-9 || math.Abs(r.Totals.GPUCost.Unallocated-124.18614) > 1e-6 {
		t.Errorf("unallocated %v device-hours $%v, want 130 and $124.18614", r.Totals.GPUHours.Unallocated, r.Totals.GPUCost.Unallocated)
	}
	if err := r.Reconcile(); err != nil {
		t.Error(err)
	}
	if math.Abs(r.Totals.NodeCost-215) > 1e-9 {
		t.Errorf("node cost %v, want 215", r.Totals.NodeCost)
	}
}
