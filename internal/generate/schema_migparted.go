package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"sigs.k8s.io/yaml"
)

// The types below mirror the mig-parted config schema v1
// (NVIDIA/mig-parted api/spec/v1/spec.go, v0.15.0; see
// shared/reference/gpu-formats.md §2.1). The upstream module is not served
// by the module proxy this project builds from, so ValidateMIGPartedConfig
// decodes strictly (unknown or duplicate keys are errors) into this mirror
// and applies the upstream rules. Whether a layout physically fits a GPU is
// not part of the file format; MIGPartedConfig checks that with gpushape.
type (
	mpSpec struct {
		Version    string                     `json:"version,omitempty"`
		MigConfigs map[string][]mpConfigEntry `json:"mig-configs"`
	}
	mpConfigEntry struct {
		DeviceFilter json.RawMessage `json:"device-filter,omitempty"` // string or list of strings
		Devices      mpDevices       `json:"devices"`
		MigEnabled   *bool           `json:"mig-enabled"`
		MigDevices   map[string]int  `json:"mig-devices,omitempty"`
	}
)

// mpDevices is mig-parted's "devices": the string "all" or GPU indices. A
// nil value with all false means the key was missing.
type mpDevices struct {
	all     bool
	indices []int
}

func (d mpDevices) MarshalJSON() ([]byte, error) {
	if d.all {
		return []byte(`"all"`), nil
	}
	return json.Marshal(d.indices)
}

func (d *mpDevices) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte(`"all"`)) {
		d.all = true
		return nil
	}
	if err := json.Unmarshal(b, &d.indices); err != nil || d.indices == nil {
		return fmt.Errorf(`devices must be "all" or a list of GPU indices, not %s`, b)
	}
	return nil
}

// migProfileRE matches a mig-devices key: "[<c>c.]<g>g.<gb>gb" with an
// optional "+attr[,attr]" or "-attr" (attributes me, me.all, gfx).
var migProfileRE = regexp.MustCompile(`^(?:[1-9][0-9]*c\.)?[1-9][0-9]*g\.[1-9][0-9]*gb(?:\+(?:me\.all|me|gfx)(?:,(?:me\.all|me|gfx))*|-(?:me\.all|me|gfx))?$`)

// deviceIDRE matches a device-filter entry, a PCI device and vendor ID.
var deviceIDRE = regexp.MustCompile(`^0x[0-9A-Fa-f]{8}$`)

// ValidateMIGPartedConfig checks a mig-parted config file (the config.yaml
// key of the MIG manager's ConfigMap) and returns every problem: strict
// decoding into the mirrored v1 schema (no top-level keys but version and
// mig-configs), version "v1", every config non-empty, devices present as
// "all" or non-negative indices, mig-enabled present, mig-devices present
// iff mig-enabled, counts >= 0 with at least one > 0, and profile names of
// the form [<c>c.]<g>g.<gb>gb[+attr].
func ValidateMIGPartedConfig(data []byte) error {
	var s mpSpec
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		return fmt.Errorf("decoding mig-parted config: %w", err)
	}
	var p problems
	if s.Version != migPartedConfigVersion {
		p.addf("version %q: must be %q", s.Version, migPartedConfigVersion)
	}
	if len(s.MigConfigs) == 0 {
		p.addf("mig-configs: no configs")
	}
	names := make([]string, 0, len(s.MigConfigs))
	for name := range s.MigConfigs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		entries := s.MigConfigs[name]
		if len(entries) == 0 {
			p.addf("mig-configs.%s: empty config", name)
		}
		for i, e := range entries {
			e.check(&p, fmt.Sprintf("mig-configs.%s[%d]", name, i))
		}
	}
	return p.err()
}

func (e mpConfigEntry) check(p *problems, field string) {
	if !e.Devices.all && e.Devices.indices == nil {
		p.addf("%s.devices: required", field)
	}
	for _, i := range e.Devices.indices {
		if i < 0 {
			p.addf("%s.devices: negative index %d", field, i)
		}
	}
	checkDeviceFilter(p, field+".device-filter", e.DeviceFilter)
	switch {
	case e.MigEnabled == nil:
		p.addf("%s.mig-enabled: required", field)
	case !*e.MigEnabled && len(e.MigDevices) > 0:
		p.addf("%s.mig-devices: must be empty when mig-enabled is false", field)
	case *e.MigEnabled && len(e.MigDevices) == 0:
		p.addf("%s.mig-devices: required when mig-enabled is true", field)
	}
	positive := false
	for _, profile := range sortedKeys(e.MigDevices) {
		n := e.MigDevices[profile]
		if !migProfileRE.MatchString(profile) {
			p.addf("%s.mig-devices: profile %q is not [<c>c.]<g>g.<gb>gb[+attr]", field, profile)
		}
		if n < 0 {
			p.addf("%s.mig-devices.%s: count %d is negative", field, profile, n)
		}
		positive = positive || n > 0
	}
	if len(e.MigDevices) > 0 && !positive {
		p.addf("%s.mig-devices: every count is zero", field)
	}
}

func checkDeviceFilter(p *problems, field string, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var ids []string
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		ids = []string{one}
	} else if err := json.Unmarshal(raw, &ids); err != nil {
		p.addf("%s: must be a device ID or a list of them", field)
		return
	}
	for _, id := range ids {
		if !deviceIDRE.MatchString(id) {
			p.addf("%s: %q is not a PCI device ID such as 0x20B210DE", field, id)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
