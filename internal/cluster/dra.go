package cluster

import (
	"strconv"
	"strings"
)

// DRAInfo is what the cluster's Dynamic Resource Allocation API
// (resource.k8s.io) says beyond the GPU units it becomes: the drivers
// publishing devices, the device classes pods ask from, and the GPU
// ResourceClaims and ResourceClaimTemplates, for the inventory and the
// audit. The devices themselves are GPUs (GPU.Allocator DRA) and the
// claims' pods hold their units. See docs/dra.md.
type DRAInfo struct {
	// Drivers are the drivers with ResourceSlices, sorted, each with the
	// number of devices it publishes.
	Drivers       []DRADriver     `json:"drivers,omitempty"`
	DeviceClasses []DeviceClass   `json:"device_classes,omitempty"`
	Claims        []ResourceClaim `json:"claims,omitempty"`
	Templates     []ClaimTemplate `json:"templates,omitempty"`
}

// DRADriver is one DRA driver and how many devices its ResourceSlices
// publish.
type DRADriver struct {
	Name    string `json:"name"`
	Devices int    `json:"devices"`
}

// DeviceClass is a resource.k8s.io DeviceClass: its CEL selectors and
// the extended resource it serves, if any.
type DeviceClass struct {
	Name      string   `json:"name"`
	Selectors []string `json:"selectors,omitempty"`
	// ExtendedResource is spec.extendedResourceName ("nvidia.com/gpu"):
	// pods asking that resource are served through the class.
	ExtendedResource string `json:"extended_resource,omitempty"`
}

// DeviceRequest is one exactly-request of a claim or template.
type DeviceRequest struct {
	Name        string   `json:"name"`
	DeviceClass string   `json:"device_class"`
	Selectors   []string `json:"selectors,omitempty"`
	// Count is the devices asked for (ExactCount); 0 with All.
	Count int64 `json:"count,omitempty"`
	All   bool  `json:"all,omitempty"`
}

// ResourceClaim is a GPU ResourceClaim and its allocation.
type ResourceClaim struct {
	Namespace string          `json:"namespace"`
	Name      string          `json:"name"`
	Requests  []DeviceRequest `json:"requests,omitempty"`
	// Template is the ResourceClaimTemplate the claim was made from
	// (the pod's resourceClaimTemplateName), empty for a claim written
	// by hand.
	Template string `json:"template,omitempty"`
	// Units are the GPU units its allocation holds; Pods the pods
	// ("namespace/name") its status.reservedFor names.
	Units []string `json:"units,omitempty"`
	Pods  []string `json:"pods,omitempty"`
}

// ClaimTemplate is a ResourceClaimTemplate's device requests.
type ClaimTemplate struct {
	Namespace string          `json:"namespace"`
	Name      string          `json:"name"`
	Requests  []DeviceRequest `json:"requests,omitempty"`
}

// Key is "namespace/name".
func (c *ResourceClaim) Key() string { return c.Namespace + "/" + c.Name }

// NVIDIA's DRA driver for GPUs: its driver name (also the domain of its
// device attributes) and device classes (deployments/helm/
// dra-driver-nvidia-gpu/templates/deviceclass-*.yaml; docs/dra.md).
const (
	DRAGPUDriver = "gpu.nvidia.com"
	DRAGPUClass  = "gpu.nvidia.com"
	DRAMIGClass  = "mig.nvidia.com"
)

// DRAModelSelector is the CEL selector a ResourceClaim request of class
// DRAGPUClass narrows to whole GPUs of model (gpuwise's name, "L40S",
// "A100-40GB") that hold needMiB: the driver's productName attribute
// ("NVIDIA L40S", "NVIDIA A100-SXM4-40GB") names the model's family, and
// the memory capacity holds the need.
func DRAModelSelector(model string, needMiB int64) string {
	family, _, _ := strings.Cut(model, "-")
	return "device.attributes['" + DRAGPUDriver + "'].productName.contains('" + family + "') && device.capacity['" +
		DRAGPUDriver + "'].memory.compareTo(quantity('" + strconv.FormatInt(needMiB, 10) + "Mi')) >= 0"
}

// DRAMIGSelector is the CEL selector a ResourceClaim request of class
// DRAMIGClass narrows to one MIG profile with.
func DRAMIGSelector(profile string) string {
	return "device.attributes['" + DRAGPUDriver + "'].profile == '" + profile + "'"
}
