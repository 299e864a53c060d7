package gpushape

import (
	"fmt"
	"sort"
	"strings"
)

// Model is one GPU model: its memory and, when MIG-capable, its slice
// geometry and profiles.
type Model struct {
	// Name is the normalized model name gpuwise uses everywhere
	// ("H100-80GB", "A100-40GB", "L4"), as pricing.NormalizeGPUModel gives.
	Name string
	// MemoryMiB is the GPU's nominal framebuffer.
	MemoryMiB int64
	// ComputeSlices and MemorySlices are the MIG geometry (7 and 8, or 4
	// and 4 on A30); both are 0 on a GPU without MIG.
	ComputeSlices int
	MemorySlices  int
	// Profiles are the MIG GPU-instance profiles, smallest first.
	Profiles []Profile
}

// Profile is a MIG GPU-instance profile on one model.
type Profile struct {
	// Name as the driver, the device plugin and mig-parted spell it:
	// "1g.10gb", "1g.10gb+me".
	Name          string
	ComputeSlices int
	MemorySlices  int
	// MemoryMiB is the memory a workload can count on in the instance.
	// NVML reports 91–97% of the name's size; the built-in table assumes
	// 90% of the instance's share of the GPU, and live node labels replace
	// it (see FromNode).
	MemoryMiB int64
	// MaxCount is how many instances of the profile one GPU can hold.
	MaxCount int
	// Starts are the memory-slice indices an instance may start at.
	Starts []int
	// MediaExtensions marks the "+me" variant: the 1g instance that owns
	// the GPU's media engines; at most one per GPU.
	MediaExtensions bool
}

// MIGCapable reports whether the model can be partitioned with MIG.
func (m Model) MIGCapable() bool { return len(m.Profiles) > 0 }

// Profile returns the profile called name on this model.
func (m Model) Profile(name string) (Profile, bool) {
	for _, p := range m.Profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// Fraction is the share of the physical GPU an instance of p takes:
// max(compute/C, memory/M), as DESIGN.md defines a MIG unit's fraction.
func (m Model) Fraction(p Profile) float64 {
	if m.ComputeSlices == 0 || m.MemorySlices == 0 {
		return 1
	}
	return max(float64(p.ComputeSlices)/float64(m.ComputeSlices), float64(p.MemorySlices)/float64(m.MemorySlices))
}

// shape is a profile family on the slice axes, shared by every model of a
// geometry; the name's memory comes from the model.
type shape struct {
	compute, memory, maxCount int
	starts                    []int
	me                        bool
}

// Placement tables from the NVIDIA MIG user guide and `nvidia-smi mig
// -lgipp` (../shared/reference/gpu-formats.md §3.1, §3.3), in GPU-instance
// profile ID order 19, 20, 15, 14, 9, 5, 0.
var (
	sevenSlice = []shape{
		{compute: 1, memory: 1, maxCount: 7, starts: []int{0, 1, 2, 3, 4, 5, 6}},
		{compute: 1, memory: 1, maxCount: 1, starts: []int{0, 1, 2, 3, 4, 5, 6}, me: true},
		{compute: 1, memory: 2, maxCount: 4, starts: []int{0, 2, 4, 6}},
		{compute: 2, memory: 2, maxCount: 3, starts: []int{0, 2, 4}},
		{compute: 3, memory: 4, maxCount: 2, starts: []int{0, 4}},
		{compute: 4, memory: 4, maxCount: 1, starts: []int{0}},
		{compute: 7, memory: 8, maxCount: 1, starts: []int{0}},
	}
	fourSlice = []shape{
		{compute: 1, memory: 1, maxCount: 4, starts: []int{0, 1, 2, 3}},
		{compute: 1, memory: 1, maxCount: 1, starts: []int{0, 1, 2, 3}, me: true},
		{compute: 2, memory: 2, maxCount: 2, starts: []int{0, 2}},
		{compute: 4, memory: 4, maxCount: 1, starts: []int{0}},
	}
)

// spec is one row of the built-in catalog.
type spec struct {
	name     string
	memoryGB int64
	// gb names the profiles' memory in table order (1g, 1g-2slice, 2g,
	// 3g, 4g, 7g for 7-slice GPUs; 1g, 2g, 4g for 4-slice); nil: no MIG.
	gb []int
}

// builtin is the model catalog (gpu-formats.md §3.2, §3.3). Memory is the
// product's nominal size.
var builtin = []spec{
	{name: "A100-40GB", memoryGB: 40, gb: []int{5, 10, 10, 20, 20, 40}},
	{name: "A100-80GB", memoryGB: 80, gb: []int{10, 20, 20, 40, 40, 80}},
	{name: "H100-80GB", memoryGB: 80, gb: []int{10, 20, 20, 40, 40, 80}},
	{name: "H100-94GB", memoryGB: 94, gb: []int{12, 24, 24, 47, 47, 94}},
	{name: "H100-96GB", memoryGB: 96, gb: []int{12, 24, 24, 48, 48, 96}},
	{name: "H200-141GB", memoryGB: 141, gb: []int{18, 35, 35, 71, 71, 141}},
	{name: "B200", memoryGB: 180, gb: []int{23, 45, 45, 90, 90, 180}},
	{name: "A30", memoryGB: 24, gb: []int{6, 12, 24}},
	{name: "L4", memoryGB: 24},
	{name: "L40S", memoryGB: 48},
	{name: "A10G", memoryGB: 24},
	{name: "A10", memoryGB: 24},
	{name: "T4", memoryGB: 16},
	{name: "V100-16GB", memoryGB: 16},
	{name: "V100-32GB", memoryGB: 32},
}

var catalog = buildCatalog()

func buildCatalog() map[string]Model {
	out := make(map[string]Model, len(builtin))
	for _, s := range builtin {
		out[strings.ToUpper(s.name)] = s.model()
	}
	return out
}

func (s spec) model() Model {
	m := Model{Name: s.name, MemoryMiB: s.memoryGB * 1024}
	var shapes []shape
	switch len(s.gb) {
	case 6:
		shapes, m.ComputeSlices, m.MemorySlices = sevenSlice, 7, 8
	case 3:
		shapes, m.ComputeSlices, m.MemorySlices = fourSlice, 4, 4
	default:
		return m
	}
	gb, smallest := s.gb, s.gb[0]
	for _, sh := range shapes {
		var size int
		if sh.me {
			size = smallest // the +me variant of the smallest profile
		} else {
			size, gb = gb[0], gb[1:]
		}
		name := fmt.Sprintf("%dg.%dgb", sh.compute, size)
		if sh.me {
			name += "+me"
		}
		m.Profiles = append(m.Profiles, Profile{
			Name:            name,
			ComputeSlices:   sh.compute,
			MemorySlices:    sh.memory,
			MemoryMiB:       usableMiB(m.MemoryMiB, sh.memory, m.MemorySlices),
			MaxCount:        sh.maxCount,
			Starts:          sh.starts,
			MediaExtensions: sh.me,
		})
	}
	return m
}

// usableMiB is 90% of an instance's share of the GPU's memory.
func usableMiB(gpuMiB int64, slices, total int) int64 {
	return gpuMiB * int64(slices) * 9 / (int64(total) * 10)
}

// Lookup returns the built-in model with the normalized name (case
// insensitive).
func Lookup(name string) (Model, bool) {
	m, ok := catalog[strings.ToUpper(strings.TrimSpace(name))]
	return m, ok
}

// Models returns the built-in catalog sorted by name.
func Models() []Model {
	out := make([]Model, 0, len(catalog))
	for _, m := range catalog {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
