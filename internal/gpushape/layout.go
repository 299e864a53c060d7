package gpushape

import (
	"fmt"
	"maps"
	"sort"
	"strings"
)

// Layout is a set of MIG instances on one GPU as mig-parted's mig-devices
// names it: profile name → count, e.g. {"3g.40gb": 1, "2g.20gb": 1,
// "1g.10gb": 2}. Zero counts are ignored.
type Layout map[string]int

// String renders the layout largest profile first: "3g.40gb+2g.20gb+2x1g.10gb".
func (l Layout) String() string {
	type item struct {
		name string
		n    int
	}
	var items []item
	for name, n := range l {
		if n > 0 {
			items = append(items, item{name, n})
		}
	}
	sort.Slice(items, func(i, j int) bool {
		ci, cj := leadingInt(items[i].name), leadingInt(items[j].name)
		if ci != cj {
			return ci > cj
		}
		return items[i].name > items[j].name
	})
	parts := make([]string, len(items))
	for i, it := range items {
		if it.n == 1 {
			parts[i] = it.name
		} else {
			parts[i] = fmt.Sprintf("%dx%s", it.n, it.name)
		}
	}
	if len(parts) == 0 {
		return "empty"
	}
	return strings.Join(parts, "+")
}

func leadingInt(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// Instances is the number of MIG instances in the layout.
func (l Layout) Instances() int {
	n := 0
	for _, c := range l {
		n += max(c, 0)
	}
	return n
}

// Placement is one GPU instance placed on the memory-slice axis.
type Placement struct {
	Profile string
	Start   int
}

// Valid returns nil when the layout fits on one GPU of the model: every
// profile is known, counts are within each profile's maximum, at most one
// "+me" instance, and the instances can be placed without overlapping
// memory slices and within the compute slices. Otherwise the error says
// why.
func (m Model) Valid(l Layout) error {
	_, err := m.Place(l)
	return err
}

// Place returns one placement of the layout's instances, or an error when
// none exists. mig-parted only needs some placement to exist: it clears
// the GPU and retries creation orders until one fits.
func (m Model) Place(l Layout) ([]Placement, error) {
	if !m.MIGCapable() {
		return nil, fmt.Errorf("%s does not support MIG", m.Name)
	}
	var want []int // profile indices, one per instance
	var me, compute int
	names := make([]string, 0, len(l))
	for name := range l {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		n := l[name]
		if n < 0 {
			return nil, fmt.Errorf("%s: negative count %d for %s", m.Name, n, name)
		}
		if n == 0 {
			continue
		}
		i := m.profileIndex(name)
		if i < 0 {
			return nil, fmt.Errorf("%s has no MIG profile %q (profiles: %s)", m.Name, name, m.profileNames())
		}
		p := m.Profiles[i]
		if n > p.MaxCount {
			return nil, fmt.Errorf("%s: %d × %s exceeds the profile's maximum of %d per GPU", m.Name, n, name, p.MaxCount)
		}
		if p.MediaExtensions {
			me += n
		}
		compute += n * p.ComputeSlices
		for range n {
			want = append(want, i)
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("%s: empty MIG layout", m.Name)
	}
	if me > 1 {
		return nil, fmt.Errorf("%s: %d +me instances; a GPU has one set of media engines", m.Name, me)
	}
	if compute > m.ComputeSlices {
		return nil, fmt.Errorf("%s: layout %s needs %d compute slices, the GPU has %d", m.Name, l, compute, m.ComputeSlices)
	}
	// Largest memory first prunes the search fastest.
	sort.SliceStable(want, func(a, b int) bool {
		return m.Profiles[want[a]].MemorySlices > m.Profiles[want[b]].MemorySlices
	})
	starts := make([]int, len(want))
	if !m.place(want, starts, 0, 0) {
		return nil, fmt.Errorf("%s: layout %s has no placement on the GPU's %d memory slices", m.Name, l, m.MemorySlices)
	}
	out := make([]Placement, len(want))
	for i, pi := range want {
		out[i] = Placement{Profile: m.Profiles[pi].Name, Start: starts[i]}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out, nil
}

// place assigns starts to want[k:] on the free memory slices (used is a
// bitmask), backtracking.
func (m Model) place(want, starts []int, k int, used uint32) bool {
	if k == len(want) {
		return true
	}
	p := m.Profiles[want[k]]
	span := uint32(1)<<p.MemorySlices - 1
	for _, s := range p.Starts {
		// Identical profiles take increasing starts: avoids revisiting
		// permutations of the same placement.
		if k > 0 && want[k-1] == want[k] && s <= starts[k-1] {
			continue
		}
		mask := span << s
		if s+p.MemorySlices > m.MemorySlices || used&mask != 0 {
			continue
		}
		starts[k] = s
		if m.place(want, starts, k+1, used|mask) {
			return true
		}
	}
	return false
}

func (m Model) profileIndex(name string) int {
	name = CanonicalProfile(name)
	for i, p := range m.Profiles {
		if p.Name == name {
			return i
		}
	}
	return -1
}

func (m Model) profileNames() string {
	names := make([]string, len(m.Profiles))
	for i, p := range m.Profiles {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// CanonicalProfile turns the spellings a profile appears in — a resource
// name "nvidia.com/mig-1g.10gb.me", a label value "mig-1g.10gb" — into the
// driver's "1g.10gb+me".
func CanonicalProfile(name string) string {
	name = strings.TrimPrefix(name, "nvidia.com/")
	name = strings.TrimPrefix(name, "mig-")
	if i := strings.Index(name, "gb."); i >= 0 {
		name = name[:i+2] + "+" + name[i+3:]
	}
	return name
}

// Layouts returns every valid non-empty layout of the model's profiles
// without the "+me" variants (any one 1g instance of a layout may be
// swapped for it): 77 on 7-slice GPUs. Order is deterministic.
func (m Model) Layouts() []Layout {
	var base []int
	for i, p := range m.Profiles {
		if !p.MediaExtensions {
			base = append(base, i)
		}
	}
	var out []Layout
	counts := make([]int, len(base))
	var walk func(k int)
	walk = func(k int) {
		if k == len(base) {
			l := Layout{}
			for i, c := range counts {
				if c > 0 {
					l[m.Profiles[base[i]].Name] = c
				}
			}
			if len(l) > 0 && m.Valid(l) == nil {
				out = append(out, l)
			}
			return
		}
		for c := 0; c <= m.Profiles[base[k]].MaxCount; c++ {
			counts[k] = c
			walk(k + 1)
		}
		counts[k] = 0
	}
	walk(0)
	sort.SliceStable(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// MaximalLayouts returns the valid layouts to which no further instance can
// be added: 28 on 7-slice GPUs, 4 on A30.
func (m Model) MaximalLayouts() []Layout {
	var out []Layout
	for _, l := range m.Layouts() {
		if m.Full(l) {
			out = append(out, l)
		}
	}
	return out
}

// Full reports whether no further instance of any profile fits beside l.
func (m Model) Full(l Layout) bool {
	l = maps.Clone(l)
	for _, p := range m.Profiles {
		if p.MediaExtensions {
			continue
		}
		l[p.Name]++
		ok := m.Valid(l) == nil
		l[p.Name]--
		if l[p.Name] == 0 {
			delete(l, p.Name)
		}
		if ok {
			return false
		}
	}
	return true
}

// ComputeUsed and MemoryUsed are the slices a layout takes.
func (m Model) ComputeUsed(l Layout) int {
	n := 0
	for name, c := range l {
		if i := m.profileIndex(name); i >= 0 {
			n += c * m.Profiles[i].ComputeSlices
		}
	}
	return n
}

// DriverNote names the driver a layout needs beyond the first MIG drivers,
// or "" when any MIG driver will do: 4g + 3g on one GPU needs R510 or
// newer.
func (m Model) DriverNote(l Layout) string {
	var has4, has3 bool
	for name, c := range l {
		if c <= 0 {
			continue
		}
		if i := m.profileIndex(name); i >= 0 {
			switch m.Profiles[i].ComputeSlices {
			case 4:
				has4 = true
			case 3:
				has3 = true
			}
		}
	}
	if m.ComputeSlices == 7 && has4 && has3 {
		return "4g + 3g on one GPU needs NVIDIA driver R510 or newer"
	}
	return ""
}
