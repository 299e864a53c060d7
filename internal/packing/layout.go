package packing

import (
	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// migBits is the width of one profile's count in a packed layout key:
// counts never exceed 7 per profile, so 4 bits leave room, and 8 profiles
// fit in a uint32.
const migBits = 4

// model is a GPU model with its MIG layouts keyed as count vectors, so
// that "does this GPU still have a valid layout with one more P?" is a
// map lookup. The answers come from gpushape.Model.Valid and are memoized,
// so the packer can never accept a layout Valid rejects.
type model struct {
	gpushape.Model
	profile map[string]int // canonical profile name → index in Profiles
	valid   map[uint32]bool
	full    map[uint32]bool // valid and nothing more can be added
	usable  bool            // profiles fit the key (≤ 8, counts ≤ 15)
}

func newModel(m gpushape.Model) *model {
	md := &model{Model: m, profile: map[string]int{}, valid: map[uint32]bool{0: true}, full: map[uint32]bool{}}
	md.usable = m.MIGCapable() && len(m.Profiles) <= 32/migBits
	for i, p := range m.Profiles {
		md.profile[p.Name] = i
		if p.MaxCount >= 1<<migBits {
			md.usable = false
		}
	}
	return md
}

// profileIndex is the index of a MIG profile on the model, or -1.
func (m *model) profileIndex(name string) int {
	if !m.usable {
		return -1
	}
	if i, ok := m.profile[gpushape.CanonicalProfile(name)]; ok {
		return i
	}
	return -1
}

func (m *model) count(key uint32, i int) int {
	return int(key >> (uint(i) * migBits) & (1<<migBits - 1))
}

// add returns the key with one more instance of profile i and whether that
// layout is valid on the model.
func (m *model) add(key uint32, i int) (uint32, bool) {
	if m.count(key, i) == 1<<migBits-1 {
		return key, false
	}
	next := key + 1<<(uint(i)*migBits)
	return next, m.isValid(next)
}

func (m *model) isValid(key uint32) bool {
	if v, ok := m.valid[key]; ok {
		return v
	}
	v := m.Valid(m.layout(key)) == nil
	m.valid[key] = v
	return v
}

// isFull reports whether no profile can be added to a valid layout.
func (m *model) isFull(key uint32) bool {
	if v, ok := m.full[key]; ok {
		return v
	}
	full := true
	for i := range m.Profiles {
		if _, ok := m.add(key, i); ok {
			full = false
			break
		}
	}
	m.full[key] = full
	return full
}

// layout turns a key back into mig-parted's profile → count map.
func (m *model) layout(key uint32) gpushape.Layout {
	l := gpushape.Layout{}
	for i, p := range m.Profiles {
		if c := m.count(key, i); c > 0 {
			l[p.Name] = c
		}
	}
	return l
}

// computeUsed is the compute slices a layout takes.
func (m *model) computeUsed(key uint32) int {
	n := 0
	for i, p := range m.Profiles {
		n += m.count(key, i) * p.ComputeSlices
	}
	return n
}

// models resolves model names for a problem: overrides first, then the
// built-in table, else a model without MIG.
type models struct {
	over map[string]gpushape.Model
	byID map[string]*model
}

func (ms *models) get(name string) *model {
	if m, ok := ms.byID[name]; ok {
		return m
	}
	gm, ok := ms.over[name]
	if !ok {
		gm, ok = gpushape.Lookup(name)
	}
	if !ok {
		gm = gpushape.Model{Name: name}
	}
	m := newModel(gm)
	if ms.byID == nil {
		ms.byID = map[string]*model{}
	}
	ms.byID[name] = m
	return m
}
