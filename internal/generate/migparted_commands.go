package generate

import (
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// migStateTimeout is how long the commands wait for the MIG manager; a
// layout change that needs a GPU reset or node reboot can take minutes.
const migStateTimeout = "20m"

// commands writes the rollout script. It stops at the first failing
// command (set -eu), so a node whose MIG manager reports failure stays
// cordoned for a person to look at.
func (m MIGParted) commands(configMapPath string, configs map[string][]MIGDeviceGroup) []byte {
	var b strings.Builder
	b.WriteString(`#!/bin/sh
# gpuwise: roll out MIG layouts with the GPU Operator's MIG manager.
#
# WARNING: changing a GPU's MIG layout destroys every MIG device on that GPU
# (mig-parted clears all GPU and compute instances, then creates the new
# ones). Pods using them lose their GPU. The MIG manager does not check
# that a GPU is idle: cordon and drain GPU pods first, one node at a time.
#
# This ConfigMap replaces the operator's whole config set: a node labelled
# with a config not defined here will fail to reconfigure. Check first:
#   kubectl get nodes -L ` + MIGConfigLabel + ` -L ` + MIGConfigStateLabel + `
set -eu

`)
	fmt.Fprintf(&b, "kubectl apply -f %s\n", configMapPath)
	patch := fmt.Sprintf(`{"spec":{"migManager":{"config":{"name":%q}}}}`, m.ConfigMap)
	fmt.Fprintf(&b, "kubectl patch clusterpolicy %s --type merge -p '%s'\n", ClusterPolicyName, patch)
	b.WriteString(mixedStrategyNote(configs))
	b.WriteString(driverNotes(configs))
	for _, n := range m.Nodes {
		writeNodeSteps(&b, n, configs[n.Config])
	}
	return []byte(b.String())
}

func writeNodeSteps(b *strings.Builder, n MIGNode, groups []MIGDeviceGroup) {
	layout := "MIG disabled on every GPU"
	if n.Config != AllDisabledConfig {
		layout = render(groups)
	}
	fmt.Fprintf(b, "\n# node %s -> %s: %s\n", n.Node, n.Config, layout)
	fmt.Fprintf(b, "kubectl cordon %s\n", n.Node)
	fmt.Fprintf(b, "# drain GPU pods (or wait for them to finish), e.g.:\n")
	fmt.Fprintf(b, "#   kubectl drain %s --ignore-daemonsets --delete-emptydir-data\n", n.Node)
	fmt.Fprintf(b, "kubectl label node %s %s=%s --overwrite\n", n.Node, MIGConfigLabel, n.Config)
	fmt.Fprintf(b, "kubectl wait node/%s --for=jsonpath='{.metadata.labels.%s}'=success --timeout=%s\n",
		n.Node, strings.ReplaceAll(MIGConfigStateLabel, ".", `\.`), migStateTimeout)
	fmt.Fprintf(b, "kubectl uncordon %s\n", n.Node)
}

// mixedStrategyNote tells the reader when a layout needs the mixed MIG
// strategy. It is a comment, not a command: switching strategy renames
// the MIG resources on every MIG node of the cluster.
func mixedStrategyNote(configs map[string][]MIGDeviceGroup) string {
	var mixed []string
	for _, name := range sortedKeys(configs) {
		if needsMixed(configs[name]) {
			mixed = append(mixed, name)
		}
	}
	if len(mixed) == 0 {
		return ""
	}
	return fmt.Sprintf(`
# %s mix profiles or MIG and whole GPUs on a node, which needs
# the mixed MIG strategy (resources nvidia.com/mig-<profile>). If the
# cluster uses single, switching renames MIG resources on every node:
#   kubectl patch clusterpolicy %s --type merge -p '{"spec":{"mig":{"strategy":"mixed"}}}'
`, strings.Join(mixed, ", "), ClusterPolicyName)
}

// driverNotes lists layouts that need a newer driver than MIG itself.
func driverNotes(configs map[string][]MIGDeviceGroup) string {
	var b strings.Builder
	for _, name := range sortedKeys(configs) {
		for _, g := range configs[name] {
			model, ok := gpushape.Lookup(g.Model)
			if !ok || len(g.Layout) == 0 {
				continue
			}
			if note := model.DriverNote(gpushape.Layout(g.Layout)); note != "" {
				fmt.Fprintf(&b, "# %s %s: %s\n", name, gpuList(g.Devices), note)
			}
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n" + b.String()
}
