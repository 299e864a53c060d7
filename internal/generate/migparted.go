package generate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// MIGPartedConfig returns the MIG manager's ConfigMap
// ("mig-parted/configmap.yaml", key config.yaml: all-disabled plus one
// config per distinct MIGNode.Config) and the commands that roll it out
// ("mig-parted/apply.sh": the ClusterPolicy patch, then per node cordon,
// drain hint, label, wait for success, uncordon). Each layout is checked
// with gpushape against its group's GPU model, and the file against
// ValidateMIGPartedConfig. Every problem in the input is returned in one
// error.
func MIGPartedConfig(m MIGParted) ([]File, error) {
	m = m.withDefaults()
	configs, err := m.configs()
	if err != nil {
		return nil, err
	}
	spec := mpSpec{MigConfigs: map[string][]mpConfigEntry{
		AllDisabledConfig: {{Devices: mpDevices{all: true}, MigEnabled: new(false)}},
	}}
	for name, groups := range configs {
		spec.MigConfigs[name] = entries(groups)
	}
	body, err := yaml.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("mig-parted config: encoding: %w", err)
	}
	text := "version: " + migPartedConfigVersion + "\n" + string(body)
	if err := ValidateMIGPartedConfig([]byte(text)); err != nil {
		return nil, fmt.Errorf("mig-parted config: generated config is invalid (a gpuwise bug): %w", err)
	}
	cm, err := configMapFile("mig-parted/configmap.yaml", m.ConfigMap, m.Namespace,
		map[string]string{migPartedConfigMapKey: text},
		"gpuwise MIG layouts for the GPU Operator's MIG manager (mig-parted config v1)")
	if err != nil {
		return nil, err
	}
	files := []File{cm, {Path: "mig-parted/apply.sh", Data: m.commands(cm.Path, configs)}}
	sortFiles(files)
	return files, nil
}

func (m MIGParted) withDefaults() MIGParted {
	if m.ConfigMap == "" {
		m.ConfigMap = DefaultMIGPartedConfigMap
	}
	if m.Namespace == "" {
		m.Namespace = DefaultNamespace
	}
	return m
}

// configs checks the input and returns each config name's canonical
// groups, or every problem found.
func (m MIGParted) configs() (map[string][]MIGDeviceGroup, error) {
	var p problems
	checkName(&p, "mig-parted ConfigMap name", m.ConfigMap, validation.IsDNS1123Subdomain)
	checkName(&p, "mig-parted ConfigMap namespace", m.Namespace, validation.IsDNS1123Label)
	configs := map[string][]MIGDeviceGroup{}
	owner := map[string]string{} // config → first node that defined it
	var nodes []string
	for _, n := range m.Nodes {
		if slices.Contains(nodes, n.Node) {
			p.addf("mig-parted node %q: listed twice", n.Node)
		}
		nodes = append(nodes, n.Node)
		if !n.check(&p) || n.Config == AllDisabledConfig {
			continue
		}
		groups := canonicalGroups(n.Groups)
		if prev, ok := configs[n.Config]; ok {
			if render(prev) != render(groups) {
				p.addf("mig-parted config %q: nodes %q and %q give it different layouts (%s vs %s); use two config names",
					n.Config, owner[n.Config], n.Node, render(prev), render(groups))
			}
			continue
		}
		configs[n.Config], owner[n.Config] = groups, n.Node
	}
	return configs, p.err()
}

// check adds the node's problems and reports whether it had none.
func (n MIGNode) check(p *problems) bool {
	before := len(p.errs)
	what := fmt.Sprintf("mig-parted node %q", n.Node)
	checkName(p, "mig-parted node name", n.Node, validation.IsDNS1123Subdomain)
	checkConfigName(p, what+": config name", n.Config)
	switch {
	case n.Config == AllDisabledConfig && len(n.Groups) > 0:
		p.addf("%s: config %q is predefined (MIG off on every GPU) and takes no groups", what, AllDisabledConfig)
	case n.Config != AllDisabledConfig && len(n.Groups) == 0:
		p.addf("%s: no device groups", what)
	}
	claimed := map[int]bool{}
	for _, g := range n.Groups {
		g.check(p, n, claimed)
	}
	return len(p.errs) == before
}

func (g MIGDeviceGroup) check(p *problems, n MIGNode, claimed map[int]bool) {
	what := fmt.Sprintf("mig-parted node %q %s", n.Node, gpuList(g.Devices))
	if len(g.Devices) == 0 && len(g.DeviceFilter) == 0 && len(n.Groups) > 1 {
		p.addf("%s: a group for all GPUs without a device filter overlaps the node's other groups", what)
	}
	for _, d := range g.Devices {
		if d < 0 {
			p.addf("%s: GPU index %d is negative", what, d)
		}
		if claimed[d] {
			p.addf("%s: GPU %d is in more than one group", what, d)
		}
		claimed[d] = true
	}
	for _, id := range g.DeviceFilter {
		if !deviceIDRE.MatchString(id) {
			p.addf("%s: device filter %q is not a PCI device ID such as 0x20B210DE", what, id)
		}
	}
	g.checkLayout(p, what)
}

// checkLayout adds a problem when a non-empty layout has bad counts or
// profile names, or does not fit one GPU of the group's model.
func (g MIGDeviceGroup) checkLayout(p *problems, what string) {
	if len(g.Layout) == 0 {
		return
	}
	layout := gpushape.Layout(g.Layout)
	what = fmt.Sprintf("%s layout %s", what, layout)
	bad := false
	for _, profile := range sortedKeys(g.Layout) {
		if !migProfileRE.MatchString(profile) {
			p.addf("%s: profile %q is not [<c>c.]<g>g.<gb>gb[+attr]", what, profile)
			bad = true
		}
		if g.Layout[profile] < 0 {
			p.addf("%s: count %d for %s is negative", what, g.Layout[profile], profile)
			bad = true
		}
	}
	if layout.Instances() == 0 {
		p.addf("%s: every count is zero; leave Layout empty to disable MIG", what)
		bad = true
	}
	if g.Model == "" {
		p.addf("%s: GPU model is empty; it is needed to check the layout fits", what)
		return
	}
	model, ok := gpushape.Lookup(g.Model)
	if !ok {
		p.addf("%s: unknown GPU model %q", what, g.Model)
		return
	}
	if bad {
		return
	}
	if err := model.Valid(layout); err != nil {
		p.addf("%s: does not fit one %s GPU: %w", what, model.Name, err)
	}
}

// canonicalGroups sorts each group's indices and filters and orders the
// groups ("all" first, then by first index) so equal layouts compare and
// render equal.
func canonicalGroups(in []MIGDeviceGroup) []MIGDeviceGroup {
	out := make([]MIGDeviceGroup, len(in))
	for i, g := range in {
		g.Devices = slices.Sorted(slices.Values(g.Devices))
		g.DeviceFilter = slices.Sorted(slices.Values(g.DeviceFilter))
		out[i] = g
	}
	slices.SortStableFunc(out, func(a, b MIGDeviceGroup) int {
		return firstIndex(a) - firstIndex(b)
	})
	return out
}

func firstIndex(g MIGDeviceGroup) int {
	if len(g.Devices) == 0 {
		return -1
	}
	return g.Devices[0]
}

// render is a group list as one line, for comparisons and comments:
// "GPUs 0-3 7x1g.10gb; GPUs 6-7 MIG disabled".
func render(groups []MIGDeviceGroup) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		s := gpuList(g.Devices)
		if len(g.DeviceFilter) > 0 {
			s += " [" + strings.Join(g.DeviceFilter, ",") + "]"
		}
		if len(g.Layout) == 0 {
			parts[i] = s + " MIG disabled"
		} else {
			parts[i] = s + " " + g.Model + " " + gpushape.Layout(g.Layout).String()
		}
	}
	return strings.Join(parts, "; ")
}

// gpuList names GPU indices compactly: "GPUs 0-3,6", "GPU 4", "all GPUs".
func gpuList(devices []int) string {
	if len(devices) == 0 {
		return "all GPUs"
	}
	d := slices.Sorted(slices.Values(devices))
	var parts []string
	for i := 0; i < len(d); {
		j := i
		for j+1 < len(d) && d[j+1] == d[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(d[i])+"-"+strconv.Itoa(d[j]))
		} else {
			parts = append(parts, strconv.Itoa(d[i]))
		}
		i = j + 1
	}
	if len(d) == 1 {
		return "GPU " + parts[0]
	}
	return "GPUs " + strings.Join(parts, ",")
}

// entries converts canonical groups to mig-parted config entries.
func entries(groups []MIGDeviceGroup) []mpConfigEntry {
	out := make([]mpConfigEntry, 0, len(groups))
	for _, g := range groups {
		e := mpConfigEntry{
			Devices:    mpDevices{all: len(g.Devices) == 0, indices: g.Devices},
			MigEnabled: new(len(g.Layout) > 0),
		}
		switch len(g.DeviceFilter) {
		case 0:
		case 1:
			e.DeviceFilter = []byte(strconv.Quote(g.DeviceFilter[0]))
		default:
			e.DeviceFilter = []byte(`["` + strings.Join(g.DeviceFilter, `","`) + `"]`)
		}
		if len(g.Layout) > 0 {
			e.MigDevices = map[string]int{}
			for profile, n := range g.Layout {
				if n > 0 {
					e.MigDevices[profile] = n
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// needsMixed reports whether a config needs the mixed MIG strategy: the
// single strategy requires every GPU MIG-enabled with one profile.
func needsMixed(groups []MIGDeviceGroup) bool {
	var profiles []string
	for _, g := range groups {
		if len(g.Layout) == 0 {
			return true
		}
		for p, n := range g.Layout {
			if n > 0 && !slices.Contains(profiles, p) {
				profiles = append(profiles, p)
			}
		}
	}
	return len(profiles) > 1
}
