package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
