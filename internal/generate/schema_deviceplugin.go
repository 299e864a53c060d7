package generate

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// The types below mirror the NVIDIA k8s-device-plugin config schema v1
// (api/config/v1: config.go, flags.go, sharing.go, replicas.go as of
// v0.20.0, see shared/reference/gpu-formats.md §1.1–1.3). The upstream
// module github.com/NVIDIA/k8s-device-plugin is not served by the module
// proxy this project builds from, so gpuwise cannot decode with the real
// types; instead ValidateDevicePluginConfig decodes strictly (unknown or
// duplicate keys are errors) into this mirror and applies the upstream
// parse rules plus gpuwise's own (explicit version, resource names).
type (
	dpConfig struct {
		Version   string          `json:"version,omitempty"`
		Flags     *dpFlags        `json:"flags,omitempty"`
		Resources json.RawMessage `json:"resources,omitempty"` // parsed but ignored upstream
		Sharing   *dpSharing      `json:"sharing,omitempty"`
		Imex      json.RawMessage `json:"imex,omitempty"`
	}
	dpFlags struct {
		MigStrategy             *string        `json:"migStrategy,omitempty"`
		FailOnInitError         *bool          `json:"failOnInitError,omitempty"`
		MpsRoot                 *string        `json:"mpsRoot,omitempty"`
		NvidiaDriverRoot        *string        `json:"nvidiaDriverRoot,omitempty"`
		NvidiaDevRoot           *string        `json:"nvidiaDevRoot,omitempty"`
		GDRCopyEnabled          *bool          `json:"gdrcopyEnabled,omitempty"`
		GDSEnabled              *bool          `json:"gdsEnabled,omitempty"`
		MOFEDEnabled            *bool          `json:"mofedEnabled,omitempty"`
		UseNodeFeatureAPI       *bool          `json:"useNodeFeatureAPI,omitempty"`
		DeviceDiscoveryStrategy *string        `json:"deviceDiscoveryStrategy,omitempty"`
		Plugin                  *dpPluginFlags `json:"plugin,omitempty"`
		GFD                     *dpGFDFlags    `json:"gfd,omitempty"`
	}
	dpPluginFlags struct {
		PassDeviceSpecs               *bool           `json:"passDeviceSpecs,omitempty"`
		DeviceListStrategy            json.RawMessage `json:"deviceListStrategy,omitempty"` // string or list
		DeviceIDStrategy              *string         `json:"deviceIDStrategy,omitempty"`
		CDIAnnotationPrefix           *string         `json:"cdiAnnotationPrefix,omitempty"`
		NvidiaCTKPath                 *string         `json:"nvidiaCTKPath,omitempty"`
		ContainerDriverRoot           *string         `json:"containerDriverRoot,omitempty"`
		SharedDevicesAllocationPolicy *string         `json:"sharedDevicesAllocationPolicy,omitempty"`
	}
	dpGFDFlags struct {
		Oneshot         *bool   `json:"oneshot,omitempty"`
		NoTimestamp     *bool   `json:"noTimestamp,omitempty"`
		SleepInterval   *string `json:"sleepInterval,omitempty"`
		OutputFile      *string `json:"outputFile,omitempty"`
		MachineTypeFile *string `json:"machineTypeFile,omitempty"`
	}
	dpSharing struct {
		TimeSlicing *dpReplicated `json:"timeSlicing,omitempty"`
		MPS         *dpReplicated `json:"mps,omitempty"`
	}
	dpReplicated struct {
		RenameByDefault            bool                   `json:"renameByDefault,omitempty"`
		FailRequestsGreaterThanOne bool                   `json:"failRequestsGreaterThanOne,omitempty"`
		Resources                  []dpReplicatedResource `json:"resources"`
	}
	dpReplicatedResource struct {
		Name     string          `json:"name"`
		Replicas int             `json:"replicas"`
		Rename   string          `json:"rename,omitempty"`  // ignored at runtime upstream
		Devices  json.RawMessage `json:"devices,omitempty"` // ignored at runtime upstream
	}
)

// sharedResourceRE matches the resources the device plugin can replicate:
// whole GPUs, or MIG devices under the mixed strategy (profile "+attr"
// becomes ".attr" in resource names).
var sharedResourceRE = regexp.MustCompile(`^nvidia\.com/(gpu|mig-(?:[1-9][0-9]*c\.)?[1-9][0-9]*g\.[1-9][0-9]*gb(?:\.(?:me\.all|me|gfx))*)$`)

// ValidateDevicePluginConfig checks one device-plugin config file (the
// value of one ConfigMap key) and returns every problem: strict decoding
// into the mirrored v1 schema, version "v1", a known migStrategy,
// time-slicing and MPS not both set, a non-empty resource list, replicas
// of at least 2, nvidia.com/gpu or nvidia.com/mig-* names (the latter only
// with migStrategy mixed), no duplicates, and renamed names within 63
// characters.
func ValidateDevicePluginConfig(data []byte) error {
	var c dpConfig
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return fmt.Errorf("decoding device-plugin config: %w", err)
	}
	var p problems
	if c.Version != devicePluginConfigVersion {
		p.addf("version %q: must be %q", c.Version, devicePluginConfigVersion)
	}
	strategy := migStrategyNone
	if c.Flags != nil && c.Flags.MigStrategy != nil {
		strategy = *c.Flags.MigStrategy
	}
	switch strategy {
	case migStrategyNone, migStrategySingle, migStrategyMixed:
	default:
		p.addf("flags.migStrategy %q: must be none, single or mixed", strategy)
	}
	if c.Sharing != nil {
		if c.Sharing.TimeSlicing != nil && c.Sharing.MPS != nil {
			p.addf("sharing: timeSlicing and mps are mutually exclusive")
		}
		c.Sharing.TimeSlicing.check(&p, "sharing.timeSlicing", strategy)
		c.Sharing.MPS.check(&p, "sharing.mps", strategy)
	}
	return p.err()
}

func (r *dpReplicated) check(p *problems, field, strategy string) {
	if r == nil {
		return
	}
	if len(r.Resources) == 0 {
		p.addf("%s.resources: at least one resource is required", field)
	}
	seen := map[string]bool{}
	for i, res := range r.Resources {
		f := fmt.Sprintf("%s.resources[%d]", field, i)
		switch {
		case !sharedResourceRE.MatchString(res.Name):
			p.addf("%s.name %q: must be nvidia.com/gpu or nvidia.com/mig-<profile>", f, res.Name)
		case strings.HasPrefix(res.Name, "nvidia.com/mig-") && strategy != migStrategyMixed:
			p.addf("%s.name %q: MIG resources exist only with flags.migStrategy mixed", f, res.Name)
		case r.RenameByDefault && len(res.Name+".shared") > maxExtendedResourceNameLength:
			p.addf("%s.name %q: renamed %q is longer than %d characters", f, res.Name, res.Name+".shared", maxExtendedResourceNameLength)
		}
		if seen[res.Name] {
			p.addf("%s.name %q: listed twice", f, res.Name)
		}
		seen[res.Name] = true
		if res.Replicas < minTimeSlicingReplicas {
			p.addf("%s.replicas %d: must be >= %d", f, res.Replicas, minTimeSlicingReplicas)
		}
	}
}
