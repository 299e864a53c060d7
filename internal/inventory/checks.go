package inventory

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Checks the inventory makes (Finding.Check).
const (
	// CheckNotAdvertised: a GPU node (labels, NFD or its instance type
	// say so) advertises no allocatable GPU: nothing can be scheduled on
	// its GPUs, which are paid for idle.
	CheckNotAdvertised = "gpus-not-advertised"
	// CheckGPUsMissing: fewer GPUs advertised than the hardware has.
	CheckGPUsMissing = "gpus-missing"
	// CheckNoFeatureDiscovery: GPUs advertised without GFD labels and no
	// other source names the model.
	CheckNoFeatureDiscovery = "no-feature-discovery"
	// CheckMIGFailed: the MIG manager reports the wanted layout failed.
	CheckMIGFailed = "mig-config-failed"
	// CheckMIGInvalid: the single strategy on a layout it cannot serve.
	CheckMIGInvalid = "mig-invalid"
	// CheckOperandMissing: the GPU operator should run a component on
	// the node (gpu.deploy label true) but no pod of it runs.
	CheckOperandMissing = "operand-missing"
	// CheckPaused: operands paused for a MIG change.
	CheckPaused = "operands-paused"
)

// check lists the node's findings.
func check(n *cluster.Node, out *Node) []Finding {
	var fs []Finding
	add := func(check, msg, fix string) {
		fs = append(fs, Finding{Node: n.Name, Check: check, Message: msg, Fix: fix})
	}
	if out.GPUs == 0 {
		add(CheckNotAdvertised, notAdvertised(n, out), notAdvertisedFix(n, out))
	}
	// On MIG nodes the API does not say which GPU holds which instance,
	// so the physical count is a packing, not a fact to check.
	if out.ExpectedGPUs != nil && out.GPUs > 0 && out.GPUs < *out.ExpectedGPUs && out.MIG.Strategy == "none" {
		add(CheckGPUsMissing, fmt.Sprintf("advertises %d of the %d GPUs its %s gives: %d cannot be scheduled",
			out.GPUs, *out.ExpectedGPUs, out.ExpectedFrom, *out.ExpectedGPUs-out.GPUs),
			fmt.Sprintf("kubectl describe node %s; look for unhealthy devices (XID errors) in the device plugin's log and run nvidia-smi on the node", n.Name))
	}
	if out.GPUs > 0 && out.FeatureDiscovery.Status == Missing && n.GPUModel == "" {
		add(CheckNoFeatureDiscovery, "advertises GPUs without GPU feature discovery labels: no label names the model, so pods cannot select it, gpuwise prices the node by instance type only and MIG and shape advice is off",
			"run GPU feature discovery (the GPU operator's gpu-feature-discovery, or the device plugin chart with gfd.enabled=true); "+
				"from Prometheus, also let kube-state-metrics export the labels (--metric-labels-allowlist=nodes=[nvidia.com/gpu.product,...])")
	}
	migChecks(n, out, add)
	for _, c := range out.Components {
		if c.Status == Missing {
			add(CheckOperandMissing, fmt.Sprintf("%s should run here (%s)", c.Name, c.Evidence),
				fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s; check the GPU operator's %s DaemonSet and its node selector", n.Name, c.Name))
		}
	}
	return fs
}

func migChecks(n *cluster.Node, out *Node, add func(check, msg, fix string)) {
	if out.MIG.State == "failed" {
		add(CheckMIGFailed, fmt.Sprintf("nvidia.com/mig.config.state=failed: the GPUs do not serve the layout %q asks for", out.MIG.Config),
			fmt.Sprintf("kubectl -n gpu-operator logs -l app=nvidia-mig-manager; fix the config, then cordon %s, drain its GPU pods and relabel nvidia.com/mig.config", n.Name))
	}
	if strings.Contains(out.Product, "-MIG-INVALID") {
		add(CheckMIGInvalid, fmt.Sprintf("%s=%s: the single strategy needs one profile on every GPU", lblProduct, out.Product),
			"give every GPU the same MIG profile, or switch the node to the mixed strategy")
	}
	var paused []string
	for _, c := range out.Components {
		if c.Status == Paused {
			paused = append(paused, c.Name)
		}
	}
	if len(paused) > 0 {
		add(CheckPaused, fmt.Sprintf("%s paused for a MIG change (nvidia.com/mig.config.state=%s): GPUs are not scheduled or measured until it completes",
			strings.Join(paused, ", "), orUnknown(out.MIG.State)),
			"wait for nvidia.com/mig.config.state=success; if it stays, read the mig-manager's log")
	}
}

// notAdvertised says why the node is a GPU node and what it advertises.
func notAdvertised(n *cluster.Node, out *Node) string {
	why := gpuEvidence(n, out)
	msg := "a GPU node (" + why + ") that advertises no allocatable GPU (nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-*): " +
		"pods cannot be scheduled on its GPUs, which are paid for idle"
	switch out.DevicePlugin.Status {
	case Running:
		msg += "; the device plugin runs (" + out.DevicePlugin.Evidence + ") but registers nothing"
	case Paused:
		msg += "; the device plugin is paused for a MIG change"
	case Disabled:
		msg += "; the GPU operator's device plugin is disabled here (" + out.DevicePlugin.Evidence + ")"
	}
	return msg
}

func gpuEvidence(n *cluster.Node, out *Node) string {
	var why []string
	if out.Product != "" {
		why = append(why, lblProduct+"="+out.Product)
	}
	for _, k := range []string{lblPresent, lblNFDNvidia} {
		if n.Labels[k] == "true" {
			why = append(why, k+"=true")
		}
	}
	if out.ExpectedGPUs != nil {
		why = append(why, fmt.Sprintf("%d GPUs by %s", *out.ExpectedGPUs, out.ExpectedFrom))
	}
	return strings.Join(why, ", ")
}

func notAdvertisedFix(n *cluster.Node, out *Node) string {
	if out.DevicePlugin.Status == Running {
		return fmt.Sprintf("kubectl -n %s logs %s; check the driver (nvidia-smi on the node) and the device plugin's config",
			podNamespace(out.DevicePlugin.Pods[0]), podName(out.DevicePlugin.Pods[0]))
	}
	return fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s; install the NVIDIA device plugin "+
		"(or the GPU operator) if none runs, and check its DaemonSet's node selector and tolerations match the node", n.Name)
}

func podNamespace(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns }
func podName(key string) string      { _, name, _ := strings.Cut(key, "/"); return name }

// sortFindings orders findings by node, then check.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Node != fs[j].Node {
			return fs[i].Node < fs[j].Node
		}
		return fs[i].Check < fs[j].Check
	})
}
