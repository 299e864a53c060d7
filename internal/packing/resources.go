package packing

import "strings"

// Extended-resource names of the NVIDIA device plugin as the plan's
// configs set it up: the mixed MIG strategy on nodes with MIG GPUs, and
// time-slicing with renameByDefault (gpuwise generate plan).
const (
	ResourceGPU       = "nvidia.com/gpu"
	ResourceGPUShared = "nvidia.com/gpu.shared"
	resourceMIGPrefix = "nvidia.com/mig-"
)

// MIGResource is the extended resource of one MIG profile under the mixed
// strategy: "1g.10gb+me" is offered as "nvidia.com/mig-1g.10gb.me".
func MIGResource(profile string) string {
	return resourceMIGPrefix + strings.ReplaceAll(profile, "+", ".")
}

// Resource is the extended resource and count a pod with this shape
// requests (request = limit) on a node configured as the plan says. It is
// "" for a pod without GPUs and for Shared: no device plugin offers
// milli-GPU shares to the default scheduler (GPU-sharing schedulers such
// as HAMi use resources and a scheduler of their own).
func (d Demand) Resource() (string, int64) {
	switch d.Kind {
	case Whole:
		return ResourceGPU, int64(d.GPUs)
	case MIG:
		return MIGResource(d.Profile), 1
	case TimeSlice:
		return ResourceGPUShared, 1
	}
	return "", 0
}

// Advertised is what the device plugin advertises as the node's
// allocatable extended resources once the plan's mig-parted layout and
// device-plugin config are applied: each MIG GPU's instances (free ones
// included) as nvidia.com/mig-<profile>, and every other GPU either as
// nvidia.com/gpu or, on a node time-sliced R ways, as R replicas of
// nvidia.com/gpu.shared. The scheduler sees only these per-node counts,
// never which GPU a unit is on. Nil for a removed node; ok is false when
// a GPU is in ModeShared, which no device-plugin count expresses.
func (np *NodePlan) Advertised() (map[string]int64, bool) {
	if !np.Keep {
		return nil, true
	}
	out := map[string]int64{}
	full := int64(0)
	for _, g := range np.GPUs {
		switch g.Mode {
		case ModeMIG:
			for p, n := range g.Layout {
				out[MIGResource(p)] += int64(n)
			}
		case ModeShared:
			return nil, false
		default:
			full++
		}
	}
	switch {
	case full == 0:
	case np.TimeSlicingReplicas > 0:
		out[ResourceGPUShared] = full * int64(np.TimeSlicingReplicas)
	default:
		out[ResourceGPU] = full
	}
	return out, true
}
