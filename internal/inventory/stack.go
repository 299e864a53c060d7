package inventory

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Names of the GPU software stack's components: the GPU operator's
// operands as its nvidia.com/gpu.deploy.<name> labels name them.
const (
	compDevicePlugin = "device-plugin"
	compGFD          = "gpu-feature-discovery"
)

// components maps a DaemonSet's name to the component it runs, first
// match wins (dcgm-exporter before dcgm). The GPU operator names them
// nvidia-device-plugin-daemonset, gpu-feature-discovery,
// nvidia-dcgm-exporter, nvidia-dcgm, nvidia-mig-manager,
// nvidia-driver-daemonset, nvidia-container-toolkit-daemonset and
// nvidia-operator-validator; the standalone charts prefix their release
// name. A device plugin counts only when its name says it is for GPUs
// (not the EFA or RDMA device plugins of the same nodes).
var components = []struct {
	name  string
	match func(ds string) bool
}{
	{"dcgm-exporter", contains("dcgm-exporter")},
	{"dcgm", contains("dcgm")},
	{compDevicePlugin, func(ds string) bool {
		return strings.Contains(ds, "device-plugin") && (strings.Contains(ds, "nvidia") || strings.Contains(ds, "gpu") ||
			strings.Contains(ds, "nvdp") || strings.Contains(ds, "hami"))
	}},
	{compGFD, contains("gpu-feature-discovery")},
	{"mig-manager", contains("mig-manager")},
	{"driver", contains("nvidia-driver")},
	{"container-toolkit", contains("container-toolkit")},
	{"operator-validator", contains("operator-validator")},
}

func contains(s string) func(string) bool {
	return func(ds string) bool { return strings.Contains(ds, s) }
}

// componentOf names the component a DaemonSet runs, or "".
func componentOf(ds string) string {
	ds = strings.ToLower(ds)
	for _, c := range components {
		if c.match(ds) {
			return c.name
		}
	}
	return ""
}

// stack fills the node's device plugin, feature discovery and the other
// components seen on it.
func (b *builder) stack(n *cluster.Node, out *Node) {
	pods := map[string][]string{}
	for _, p := range b.pods[n.Name] {
		if p.Owner.Kind != "DaemonSet" {
			continue
		}
		if c := componentOf(p.Owner.Name); c != "" {
			pods[c] = append(pods[c], p.Key())
		}
	}
	out.Components = []Component{}
	for _, c := range components {
		if comp, seen := deployed(n, c.name, pods[c.name]); seen {
			out.Components = append(out.Components, comp)
		}
	}
	out.DevicePlugin = devicePlugin(n, out, pods[compDevicePlugin])
	out.FeatureDiscovery = featureDiscovery(n, pods[compGFD])
}

// deployed is a component's status from its pods and its
// nvidia.com/gpu.deploy label; seen is false when neither exists.
func deployed(n *cluster.Node, name string, pods []string) (c Component, seen bool) {
	c = Component{Name: name, Pods: pods}
	label, labelled := n.Labels[lblDeploy+name]
	switch {
	case len(pods) > 0:
		c.Status, c.Evidence = Running, podsEvidence(pods)
	case label == "paused-for-mig-change":
		c.Status, c.Evidence = Paused, lblDeploy+name+"="+label
	case label == "false":
		c.Status, c.Evidence = Disabled, lblDeploy+name+"="+label
	case labelled:
		c.Status, c.Evidence = Missing, fmt.Sprintf("%s%s=%s but no pod of it runs on the node", lblDeploy, name, label)
	default:
		return c, false
	}
	return c, true
}

func podsEvidence(pods []string) string {
	sort.Strings(pods)
	return "pod " + strings.Join(pods, ", ")
}

// devicePlugin: its pod, else its work (allocatable GPU resources), else
// paused, disabled or missing.
func devicePlugin(n *cluster.Node, out *Node, pods []string) Component {
	c, seen := deployed(n, compDevicePlugin, pods)
	switch {
	case seen && (c.Status == Running || c.Status == Paused):
		return c
	case out.Units > 0 && allDRA(n):
		return Component{Name: compDevicePlugin, Status: Present,
			Evidence: fmt.Sprintf("%d GPU unit(s) from DRA ResourceSlices (driver %s): no device plugin needed", out.Units, n.GPUs[0].Driver)}
	case out.Units > 0:
		return Component{Name: compDevicePlugin, Status: Present,
			Evidence: fmt.Sprintf("%d GPU unit(s) allocatable; no device-plugin pod seen", out.Units)}
	case seen:
		return c
	}
	return Component{Name: compDevicePlugin, Status: Missing, Evidence: "no allocatable nvidia.com GPU resource and no device-plugin pod"}
}

// featureDiscovery: its pod, else its labels, else unknown (a source
// without node labels), paused, disabled or missing.
func featureDiscovery(n *cluster.Node, pods []string) Component {
	c, seen := deployed(n, compGFD, pods)
	if v := n.Vendor(); v != cluster.VendorNVIDIA && !seen {
		return otherLabeller(n, v)
	}
	switch {
	case seen && (c.Status == Running || c.Status == Paused):
		return c
	case gfdLabel(n.Labels) != "":
		return Component{Name: compGFD, Status: Present, Evidence: gfdLabel(n.Labels) + "; no feature-discovery pod seen"}
	case seen:
		return c
	case len(n.Labels) == 0:
		return Component{Name: compGFD, Status: Unknown, Evidence: "the source has no labels for this node"}
	}
	return Component{Name: compGFD, Status: Missing, Evidence: "no " + lblProduct + " label and no feature-discovery pod"}
}

// otherLabeller is an AMD, Neuron or Gaudi node's stand-in for GPU
// feature discovery: AMD's node labeller (its product label), or nothing
// (Neuron and Gaudi nodes are named by their instance type).
func otherLabeller(n *cluster.Node, vendor string) Component {
	if v := n.Labels[lblAMDProduct]; v != "" {
		return Component{Name: compGFD, Status: Present, Evidence: lblAMDProduct + "=" + v + " (AMD node labeller)"}
	}
	return Component{Name: compGFD, Status: NotApplicable,
		Evidence: fmt.Sprintf("a %s node: GPU feature discovery does not run; the model is from the instance type", vendor)}
}

// lblAMDProduct is the AMD node labeller's product label.
const lblAMDProduct = "amd.com/gpu.product-name"

// gfdLabel is the first label that shows GPU feature discovery ran:
// the product label, a MIG type's product label (mixed strategy) or its
// timestamp; "" when there is none.
func gfdLabel(l map[string]string) string {
	if v := l[lblProduct]; v != "" {
		return lblProduct + "=" + v
	}
	keys := make([]string, 0, len(l))
	for k := range l {
		if strings.HasPrefix(k, "nvidia.com/mig-") && strings.HasSuffix(k, ".product") || k == lblGFDTime {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	return keys[0] + "=" + l[keys[0]]
}

// allDRA reports whether every GPU of n is a DRA driver's device.
func allDRA(n *cluster.Node) bool {
	for _, g := range n.GPUs {
		if g.Allocator != cluster.DRA {
			return false
		}
	}
	return len(n.GPUs) > 0
}
