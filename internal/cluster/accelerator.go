package cluster

import "strings"

// Accelerator vendors, as outputs name them. The snapshot's GPUs are any
// accelerator a device plugin advertises as an extended resource; NVIDIA
// is the default and the vendor of a model gpuwise does not list.
const (
	VendorNVIDIA = "nvidia"
	VendorAMD    = "amd"
	VendorNeuron = "aws-neuron"
	VendorGaudi  = "intel-gaudi"
)

// Extended resources of the other vendors' device plugins
// (docs/accelerators.md gives the source of each).
const (
	// ResAMDGPU is the ROCm k8s-device-plugin's whole AMD GPU.
	ResAMDGPU = "amd.com/gpu"
	// ResNeuron is a whole AWS Neuron device (Trainium or Inferentia chip,
	// every NeuronCore on it); ResNeuronDevice its older name, still
	// served by the Neuron device plugin; ResNeuronCore one NeuronCore.
	ResNeuron       = "aws.amazon.com/neuron"
	ResNeuronDevice = "aws.amazon.com/neurondevice"
	ResNeuronCore   = "aws.amazon.com/neuroncore"
	// ResGaudi is Intel Gaudi's device plugin's whole Gaudi accelerator.
	ResGaudi = "habana.ai/gaudi"
)

// AcceleratorResources are the other vendors' resources, each a whole
// device per unit except ResNeuronCore.
var AcceleratorResources = []string{ResAMDGPU, ResNeuron, ResNeuronDevice, ResNeuronCore, ResGaudi}

// IsAcceleratorResource reports whether name is one of AcceleratorResources.
func IsAcceleratorResource(name string) bool {
	for _, r := range AcceleratorResources {
		if r == name {
			return true
		}
	}
	return false
}

// ResourceVendor is the vendor whose device plugin serves an extended
// resource; "" for a resource no accelerator device plugin serves.
func ResourceVendor(name string) string {
	switch {
	case name == ResAMDGPU:
		return VendorAMD
	case name == ResNeuron || name == ResNeuronDevice || name == ResNeuronCore:
		return VendorNeuron
	case name == ResGaudi:
		return VendorGaudi
	case strings.HasPrefix(name, "nvidia.com/"):
		return VendorNVIDIA
	}
	return ""
}

// ModelVendor is the vendor of a normalized accelerator model: AMD's
// Instinct (MI…), AWS's Trainium and Inferentia, Intel's Gaudi; NVIDIA
// otherwise (every model gpuwise knew before these).
func ModelVendor(model string) string {
	m := strings.ToUpper(model)
	switch {
	case strings.HasPrefix(m, "MI") && len(m) > 2 && m[2] >= '0' && m[2] <= '9':
		return VendorAMD
	case strings.HasPrefix(m, "TRAINIUM"), strings.HasPrefix(m, "INFERENTIA"):
		return VendorNeuron
	case strings.HasPrefix(m, "GAUDI"):
		return VendorGaudi
	}
	return VendorNVIDIA
}

// DeviceKind is what one of a vendor's devices is called in outputs: a
// GPU (NVIDIA, AMD), a Neuron device (one Trainium or Inferentia chip) or
// a Gaudi HPU.
func DeviceKind(vendor string) string {
	switch vendor {
	case VendorNeuron:
		return "neuron-device"
	case VendorGaudi:
		return "hpu"
	}
	return "gpu"
}

// WholeResource is the extended resource a pod asks for one whole device
// of a vendor's model ("nvidia.com/gpu", "amd.com/gpu", …).
func WholeResource(vendor string) string {
	switch vendor {
	case VendorAMD:
		return ResAMDGPU
	case VendorNeuron:
		return ResNeuron
	case VendorGaudi:
		return ResGaudi
	}
	return "nvidia.com/gpu"
}

// Vendor is the vendor of the node's accelerators, from its model.
func (n *Node) Vendor() string { return ModelVendor(n.GPUModel) }

// AMD's node labeller's labels (docs/accelerators.md): the product name
// with spaces as underscores and the VRAM per GPU ("192G"), written as
// plain values when every GPU of the node agrees.
const (
	LabelAMDProduct = "amd.com/gpu.product-name"
	LabelAMDVRAM    = "amd.com/gpu.vram"
)

// AMDModel turns the node labeller's product name into the catalog's
// model: "AMD_Instinct_MI300X" → "MI300X"; "" when it names no Instinct
// model.
func AMDModel(product string) string {
	for _, w := range strings.FieldsFunc(product, func(r rune) bool { return r == '_' || r == ' ' || r == '-' }) {
		if len(w) > 2 && strings.EqualFold(w[:2], "MI") && w[2] >= '0' && w[2] <= '9' {
			return strings.ToUpper(w)
		}
	}
	return ""
}

// AMDVRAMMiB reads the amd.com/gpu.vram label ("192G") as MiB; ok is
// false when it is not such a size.
func AMDVRAMMiB(v string) (mib int64, ok bool) {
	g, found := strings.CutSuffix(strings.TrimSpace(v), "G")
	if !found || g == "" {
		return 0, false
	}
	var n int64
	for _, c := range g {
		if c < '0' || c > '9' || n > 1<<20 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n * 1024, n > 0
}

// NeuronCoresPerDevice is the NeuronCores neuron-monitor reports per
// Neuron device of a model (docs/accelerators.md): 2 NeuronCore-v2 on a
// Trainium or an Inferentia2, 4 NeuronCore-v1 on an Inferentia, and on a
// Trainium2 (8 physical NeuronCore-v3) 4 logical cores under the
// runtime's default logical-core configuration (LNC=2). 0 for a model
// that is no Neuron device.
func NeuronCoresPerDevice(model string) int {
	switch strings.ToUpper(model) {
	case "TRAINIUM", "INFERENTIA2":
		return 2
	case "INFERENTIA", "TRAINIUM2":
		return 4
	}
	return 0
}

// EC2InstanceID is the EC2 instance id in an AWS node's spec.providerID
// ("aws:///us-east-1a/i-0abc…" → "i-0abc…"); "" for any other provider ID.
func EC2InstanceID(providerID string) string {
	rest, ok := strings.CutPrefix(providerID, "aws://")
	if !ok {
		return ""
	}
	id := rest[strings.LastIndexByte(rest, '/')+1:]
	if !strings.HasPrefix(id, "i-") || len(id) < 3 {
		return ""
	}
	return id
}
