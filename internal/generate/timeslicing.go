package generate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// TimeSlicingConfig returns the device-plugin ConfigMap
// ("time-slicing/configmap.yaml": one key per config plus ExclusiveConfig)
// and the commands that activate it ("time-slicing/apply.sh": the
// ClusterPolicy patch and one node label per node). Every generated config
// passes ValidateDevicePluginConfig. Every problem in the input is returned
// in one error.
func TimeSlicingConfig(ts TimeSlicing) ([]File, error) {
	ts = ts.withDefaults()
	if err := ts.check(); err != nil {
		return nil, err
	}
	data := map[string]string{ExclusiveConfig: exclusiveDevicePluginConfig()}
	for _, c := range ts.Configs {
		text, err := c.render()
		if err != nil {
			return nil, err
		}
		data[c.Name] = text
	}
	for key, text := range data {
		if err := ValidateDevicePluginConfig([]byte(text)); err != nil {
			return nil, fmt.Errorf("device-plugin config %q: generated config is invalid (a gpuwise bug): %w", key, err)
		}
	}
	cm, err := configMapFile("time-slicing/configmap.yaml", ts.ConfigMap, ts.Namespace, data,
		"gpuwise device-plugin configs (NVIDIA k8s-device-plugin config v1), one per key")
	if err != nil {
		return nil, err
	}
	files := []File{cm, {Path: "time-slicing/apply.sh", Data: ts.commands(cm.Path)}}
	sortFiles(files)
	return files, nil
}

func (ts TimeSlicing) withDefaults() TimeSlicing {
	if ts.ConfigMap == "" {
		ts.ConfigMap = DefaultDevicePluginConfigMap
	}
	if ts.Namespace == "" {
		ts.Namespace = DefaultNamespace
	}
	if ts.Default == "" {
		ts.Default = ExclusiveConfig
	}
	return ts
}

func (ts TimeSlicing) check() error {
	var p problems
	checkName(&p, "time-slicing ConfigMap name", ts.ConfigMap, validation.IsDNS1123Subdomain)
	checkName(&p, "time-slicing ConfigMap namespace", ts.Namespace, validation.IsDNS1123Label)
	names := map[string]bool{ExclusiveConfig: true}
	for _, c := range ts.Configs {
		c.check(&p)
		if names[c.Name] {
			p.addf("device-plugin config %q: defined twice (%q is always generated)", c.Name, ExclusiveConfig)
		}
		names[c.Name] = true
	}
	if !names[ts.Default] {
		p.addf("time-slicing default config %q: no such config", ts.Default)
	}
	var nodes []string
	for _, n := range ts.Nodes {
		checkName(&p, "time-slicing node name", n.Node, validation.IsDNS1123Subdomain)
		if !names[n.Config] {
			p.addf("time-slicing node %q: config %q is not defined", n.Node, n.Config)
		}
		if slices.Contains(nodes, n.Node) {
			p.addf("time-slicing node %q: assigned twice", n.Node)
		}
		nodes = append(nodes, n.Node)
	}
	return p.err()
}

func (c SharingConfig) check(p *problems) {
	what := fmt.Sprintf("device-plugin config %q", c.Name)
	checkConfigName(p, what+": name", c.Name)
	switch c.MIGStrategy {
	case "", migStrategyNone, migStrategySingle, migStrategyMixed:
	default:
		p.addf("%s: MIG strategy %q must be none, single or mixed", what, c.MIGStrategy)
	}
	for i, r := range c.Resources {
		rw := fmt.Sprintf("%s resource %q", what, r.Name)
		switch {
		case !sharedResourceRE.MatchString(r.Name):
			p.addf("%s: name must be nvidia.com/gpu or nvidia.com/mig-<profile>", rw)
		case strings.HasPrefix(r.Name, "nvidia.com/mig-") && c.MIGStrategy != migStrategyMixed:
			p.addf("%s: MIG resources can be time-sliced only with MIG strategy mixed", rw)
		}
		if r.Replicas < minTimeSlicingReplicas {
			p.addf("%s: replicas %d must be at least %d", rw, r.Replicas, minTimeSlicingReplicas)
		}
		if slices.ContainsFunc(c.Resources[:i], func(o SharedResource) bool { return o.Name == r.Name }) {
			p.addf("%s: listed twice", rw)
		}
	}
}

// checkConfigName accepts a name that is both a ConfigMap key and a node
// label value, since the same string is used as both.
func checkConfigName(p *problems, what, name string) {
	checkName(p, what, name, func(s string) []string {
		return append(validation.IsConfigMapKey(s), validation.IsValidLabelValue(s)...)
	})
}

func exclusiveDevicePluginConfig() string {
	return "version: v1\nflags:\n  migStrategy: none\n"
}

// render writes the config with "version" first, as people read it; the
// rest is marshalled from the schema mirror (keys sorted).
func (c SharingConfig) render() (string, error) {
	strategy := c.MIGStrategy
	if strategy == "" {
		strategy = migStrategyNone
	}
	cfg := dpConfig{Flags: &dpFlags{MigStrategy: &strategy}}
	if len(c.Resources) > 0 {
		rs := make([]dpReplicatedResource, 0, len(c.Resources))
		for _, r := range c.Resources {
			rs = append(rs, dpReplicatedResource{Name: r.Name, Replicas: r.Replicas})
		}
		cfg.Sharing = &dpSharing{TimeSlicing: &dpReplicated{
			RenameByDefault:            c.RenameByDefault,
			FailRequestsGreaterThanOne: c.FailRequestsGreaterThanOne,
			Resources:                  rs,
		}}
	}
	body, err := yaml.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("device-plugin config %q: encoding: %w", c.Name, err)
	}
	return "version: " + devicePluginConfigVersion + "\n" + string(body), nil
}

func (ts TimeSlicing) commands(configMapPath string) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString("# gpuwise: activate the device-plugin time-slicing configs (GPU Operator).\n")
	b.WriteString("# Nodes hot-reload their config when the label changes; pods already holding\n")
	b.WriteString("# a whole GPU keep it until they restart. Review before running.\n")
	b.WriteString("set -eu\n\n")
	fmt.Fprintf(&b, "kubectl apply -f %s\n", configMapPath)
	patch := fmt.Sprintf(`{"spec":{"devicePlugin":{"config":{"name":%q,"default":%q}}}}`, ts.ConfigMap, ts.Default)
	fmt.Fprintf(&b, "kubectl patch clusterpolicy %s --type merge -p '%s'\n", ClusterPolicyName, patch)
	b.WriteString(ts.migStrategyNote())
	if len(ts.Nodes) > 0 {
		b.WriteString("\n# per-node configs (nodes without the label use the default)\n")
	}
	for _, n := range ts.Nodes {
		fmt.Fprintf(&b, "kubectl label node %s %s=%s --overwrite\n", n.Node, DevicePluginConfigLabel, n.Config)
	}
	b.WriteString("\n# check: kubectl get nodes -L " + DevicePluginConfigLabel + " -L nvidia.com/gpu.replicas -L nvidia.com/gpu.sharing-strategy\n")
	return []byte(b.String())
}

// migStrategyNote warns that the GPU Operator passes its own MIG strategy
// to the plugin as MIG_STRATEGY, which takes precedence over
// flags.migStrategy in these configs.
func (ts TimeSlicing) migStrategyNote() string {
	var names []string
	for _, c := range ts.Configs {
		if c.MIGStrategy != "" && c.MIGStrategy != migStrategyNone {
			names = append(names, fmt.Sprintf("%s (%s)", c.Name, c.MIGStrategy))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(`
# %s set a MIG strategy. The GPU Operator sets the plugin's MIG_STRATEGY
# from its own spec.mig.strategy, and that overrides flags.migStrategy, so
# make sure it matches: kubectl get clusterpolicy %s -o jsonpath='{.spec.mig.strategy}'
`, strings.Join(names, ", "), ClusterPolicyName)
}

// configMapObject is a ConfigMap as written: the upstream type would add
// creationTimestamp: null.
type configMapObject struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   objectMeta        `json:"metadata"`
	Data       map[string]string `json:"data"`
}

func configMapFile(path, name, namespace string, data map[string]string, title string) (File, error) {
	body, err := yaml.Marshal(configMapObject{
		APIVersion: "v1",
		Kind:       "ConfigMap",
		Metadata:   objectMeta{Name: name, Namespace: namespace, Labels: managedByLabels},
		Data:       data,
	})
	if err != nil {
		return File{}, fmt.Errorf("ConfigMap %s/%s: encoding: %w", namespace, name, err)
	}
	head := fmt.Sprintf("# %s\n# apply: kubectl apply -f %s, then run the commands file beside it\n", title, path)
	return File{Path: path, Data: append([]byte(head), body...)}, nil
}
