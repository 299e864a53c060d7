package gpushape

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// FromNode returns the model of a node's GPUs with the node's live data
// laid over the built-in table: the GPUs' reported memory, and the MIG
// profile names and memory the node advertises (its MIG units and GFD
// labels nvidia.com/mig-<profile>.memory). A live profile replaces the
// built-in profile of the same slice shape, so a product whose names
// differ from the table (GB200's 1g.24gb) is planned with its own names.
//
// A model that is neither in the table nor advertises MIG profiles is not
// guessed: ok is false and reason says why. Notes list what live data
// changed.
func FromNode(n *cluster.Node) (m Model, notes []string, reason string, ok bool) {
	name := n.GPUModel
	var gpuMiB int64
	for _, g := range n.GPUs {
		if name == "" {
			name = g.Model
		}
		if g.MemoryMiB > 0 {
			gpuMiB = g.MemoryMiB
		}
	}
	if name == "" {
		return Model{}, nil, fmt.Sprintf("node %s: GPU model unknown (no nvidia.com/gpu.product label)", n.Name), false
	}
	m, known := Lookup(name)
	live := liveProfiles(n, name, gpuMiB)
	if !known {
		if len(live) == 0 {
			return Model{}, nil, fmt.Sprintf("node %s: GPU model %q is not in gpuwise's GPU table and the node advertises no MIG profiles", n.Name, name), false
		}
		m = Model{Name: name, MemoryMiB: gpuMiB}
		m.ComputeSlices, m.MemorySlices = cluster.MIGGeometry(name)
		notes = append(notes, fmt.Sprintf("node %s: %s is not in the built-in table; MIG planned with the %d profile(s) the node advertises only", n.Name, name, len(live)))
	} else {
		// Copy before modifying: the catalog's slices are shared.
		m.Profiles = append([]Profile(nil), m.Profiles...)
		if gpuMiB > 0 && gpuMiB != m.MemoryMiB {
			m.MemoryMiB = gpuMiB
		}
	}
	shapes := sevenSlice
	if m.ComputeSlices == 4 {
		shapes = fourSlice
	}
	for _, lp := range live {
		i := m.shapeIndex(lp)
		if i >= 0 {
			if m.Profiles[i].Name != lp.Name {
				notes = append(notes, fmt.Sprintf("node %s: MIG profile %s advertised where the table has %s", n.Name, lp.Name, m.Profiles[i].Name))
			}
			m.Profiles[i].Name = lp.Name
			if lp.MemoryMiB > 0 {
				m.Profiles[i].MemoryMiB = lp.MemoryMiB
			}
			continue
		}
		// Unknown model: take the placement rules of the matching shape.
		for _, sh := range shapes {
			if sh.compute == lp.ComputeSlices && sh.memory == lp.MemorySlices && sh.me == lp.MediaExtensions {
				lp.MaxCount, lp.Starts = sh.maxCount, sh.starts
				if lp.MemoryMiB == 0 && m.MemoryMiB > 0 {
					lp.MemoryMiB = usableMiB(m.MemoryMiB, lp.MemorySlices, m.MemorySlices)
				}
				m.Profiles = append(m.Profiles, lp)
				break
			}
		}
	}
	return m, notes, "", true
}

func (m Model) shapeIndex(p Profile) int {
	for i, q := range m.Profiles {
		if q.ComputeSlices == p.ComputeSlices && q.MemorySlices == p.MemorySlices && q.MediaExtensions == p.MediaExtensions {
			return i
		}
	}
	return -1
}

// liveProfiles reads the MIG profiles a node advertises, with memory from
// the GFD labels where present.
func liveProfiles(n *cluster.Node, model string, gpuMiB int64) []Profile {
	seen := map[string]int{}
	var out []Profile
	add := func(name string, compute, memory int) int {
		name = CanonicalProfile(name)
		if i, ok := seen[name]; ok {
			return i
		}
		if compute == 0 {
			var ok bool
			compute, memory, ok = cluster.ParseMIGProfile(name, model, float64(gpuMiB)/1024)
			if !ok {
				return -1
			}
		}
		seen[name] = len(out)
		out = append(out, Profile{Name: name, ComputeSlices: compute, MemorySlices: memory, MediaExtensions: strings.Contains(name, "+me")})
		return len(out) - 1
	}
	for _, g := range n.GPUs {
		for _, u := range g.Units {
			if u.Kind == cluster.MIGSlice && u.Profile != "" {
				add(u.Profile, u.ComputeSlices, u.MemorySlices)
			}
		}
	}
	for k, v := range n.Labels {
		prof, ok := strings.CutPrefix(k, "nvidia.com/mig-")
		if !ok {
			continue
		}
		prof, ok = strings.CutSuffix(prof, ".memory")
		if !ok {
			continue
		}
		i := add(prof, 0, 0)
		if mib, err := strconv.ParseInt(v, 10, 64); err == nil && mib > 0 && i >= 0 {
			out[i].MemoryMiB = mib
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
