package kube

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// TestConvertNodeAccelerators reads AMD, Neuron and Gaudi nodes as their
// device plugins and labellers publish them (docs/accelerators.md).
func TestConvertNodeAccelerators(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		labels map[string]string
		res    []string
		want   gpuShape
		mem    int64
	}{
		{
			name:   "AMD MI300X from the node labeller",
			labels: map[string]string{lblAMDProduct: "AMD_Instinct_MI300X", lblAMDVRAM: "192G"},
			res:    []string{"amd.com/gpu", "2"},
			mem:    192 * 1024,
			want: gpuShape{Model: "MI300X", GPUs: []string{"exclusive", "exclusive"}, Units: [][]string{{"n/gpu0"}, {"n/gpu1"}},
				Pools: map[string][]string{"amd.com/gpu": {"n/gpu0", "n/gpu1"}}},
		},
		{
			name:   "Trainium with NeuronCores: each device offered core by core",
			labels: map[string]string{labelRegion: "us-east-1", labelInstance: "trn1.2xlarge"},
			res:    []string{"aws.amazon.com/neuron", "1", "aws.amazon.com/neuroncore", "2"},
			want: gpuShape{Model: "Trainium", GPUs: []string{"neuron-cores"}, Units: [][]string{{"n/gpu0/nc0", "n/gpu0/nc1"}},
				Pools: map[string][]string{"aws.amazon.com/neuron": {"n/gpu0/nc0", "n/gpu0/nc1"},
					"aws.amazon.com/neurondevice": {"n/gpu0/nc0", "n/gpu0/nc1"}, "aws.amazon.com/neuroncore": {"n/gpu0/nc0", "n/gpu0/nc1"}}},
		},
		{
			name:   "Trainium without NeuronCores: whole devices",
			labels: map[string]string{labelRegion: "us-east-1", labelInstance: "trn1.2xlarge"},
			res:    []string{"aws.amazon.com/neuron", "1"},
			want: gpuShape{Model: "Trainium", GPUs: []string{"exclusive"}, Units: [][]string{{"n/gpu0"}},
				Pools: map[string][]string{"aws.amazon.com/neuron": {"n/gpu0"}, "aws.amazon.com/neurondevice": {"n/gpu0"}}},
		},
		{
			name:   "NeuronCores not a whole number per device: whole devices and a note",
			labels: map[string]string{labelRegion: "us-east-1", labelInstance: "trn1.32xlarge"},
			res:    []string{"aws.amazon.com/neuron", "2", "aws.amazon.com/neuroncore", "3"},
			want: gpuShape{Model: "Trainium", GPUs: []string{"exclusive", "exclusive"}, Units: [][]string{{"n/gpu0"}, {"n/gpu1"}},
				Pools: map[string][]string{"aws.amazon.com/neuron": {"n/gpu0", "n/gpu1"}, "aws.amazon.com/neurondevice": {"n/gpu0", "n/gpu1"}},
				Notes: []string{"node n: advertises 3 aws.amazon.com/neuroncore on 2 Neuron devices, not a whole number of cores per device: pods asking for NeuronCores are not given units; pods asking for aws.amazon.com/neuron are"}},
		},
		{
			name:   "Gaudi on dl1",
			labels: map[string]string{labelRegion: "us-east-1", labelInstance: "dl1.24xlarge"},
			res:    []string{"habana.ai/gaudi", "1"},
			want: gpuShape{Model: "Gaudi-HL205", GPUs: []string{"exclusive"}, Units: [][]string{{"n/gpu0"}},
				Pools: map[string][]string{"habana.ai/gaudi": {"n/gpu0"}}},
		},
		{
			name: "AMD without labels: unknown model said",
			res:  []string{"amd.com/gpu", "1"},
			want: gpuShape{GPUs: []string{"exclusive"}, Units: [][]string{{"n/gpu0"}},
				Pools: map[string][]string{"amd.com/gpu": {"n/gpu0"}},
				Notes: []string{"node n: no label or catalog row names its accelerator model; pricing by instance type only"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := node("n", tt.labels, append([]string{"cpu", "8", "memory", "32Gi"}, tt.res...)...)
			n.Spec.ProviderID = "aws:///us-east-1a/i-0abc"
			got, pools, notes := convertNode(n)
			if diff := cmp.Diff(tt.want, shapeOf(got, pools, notes), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, g := range got.GPUs {
				if g.MemoryMiB != tt.mem {
					t.Errorf("gpu %d: %d MiB, want %d", g.Index, g.MemoryMiB, tt.mem)
				}
			}
		})
	}
}

// TestNeuronCorePodsGetShares collects a trn1.2xlarge-shaped node with 2
// Neuron devices of 2 NeuronCores: a pod asking 1 NeuronCore takes the
// first core, a pod asking a whole device then takes device 1 (device 0
// has a core taken), a second NeuronCore pod takes device 0's free core,
// and a pod asking another whole device gets none (a note); each
// NeuronCore is half its device.
func TestNeuronCorePodsGetShares(t *testing.T) {
	t.Parallel()
	n := node("trn", map[string]string{labelRegion: "us-east-1", labelInstance: "trn1.32xlarge"},
		"cpu", "128", "memory", "512Gi", "aws.amazon.com/neuron", "2", "aws.amazon.com/neuroncore", "4")
	core1 := pod("serve", "core-1", "trn", t0, "aws.amazon.com/neuroncore", "1")
	dev := pod("train", "dev", "trn", t0.Add(time.Minute), "aws.amazon.com/neuron", "1")
	core2 := pod("serve", "core-2", "trn", t0.Add(2*time.Minute), "aws.amazon.com/neuroncore", "1")
	late := pod("train", "late", "trn", t0.Add(3*time.Minute), "aws.amazon.com/neurondevice", "1")
	c := &Client{Interface: fake.NewClientset(n, core1, dev, core2, late), Server: "https://fake", Source: "test"}
	s, err := c.Snapshot(context.Background(), t0.Add(time.Hour), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, p := range s.Pods {
		for _, h := range p.GPUs {
			got[p.Key()] = append(got[p.Key()], h.UnitID)
		}
	}
	want := map[string][]string{
		"serve/core-1": {"trn/gpu0/nc0"},
		"train/dev":    {"trn/gpu1/nc2", "trn/gpu1/nc3"},
		"serve/core-2": {"trn/gpu0/nc1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	note := "pod train/late: requests 1 aws.amazon.com/neurondevice on node trn, which has only 0 whose NeuronCores are all free; 1 not modelled"
	if !contains(s.Notes, note) {
		t.Errorf("notes %q lack %q", s.Notes, note)
	}
	pr, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"trn/gpu0/nc0", "trn/gpu1/nc3"} {
		if ref := pr.Index().Units[u]; ref.Unit == nil || ref.Unit.Fraction != 0.5 || ref.GPU.Sharing != cluster.NeuronCores {
			t.Errorf("unit %s: %+v, want half of a NeuronCore-shared device", u, ref.Unit)
		}
	}
}
