package cluster

import "fmt"

// Normalize sets every unit's Fraction from its kind: 1 for a whole GPU,
// 1/replicas for a time-slice replica, and max(compute/C, memory/M) for a
// MIG instance, scaled down when a GPU's layout would sum past 1 (4g+3g is
// 4/7 + 4/8 > 1). Afterwards the fractions of every GPU sum to at most 1.
func (g *GPU) Normalize() error {
	switch g.Sharing {
	case Exclusive, "":
		return g.normalizeWhole()
	case TimeSlicing:
		return g.normalizeTimeSliced()
	case MIG:
		return g.normalizeMIG()
	}
	return fmt.Errorf("gpu %d: unknown sharing %q", g.Index, g.Sharing)
}

func (g *GPU) normalizeWhole() error {
	if len(g.Units) != 1 {
		return fmt.Errorf("gpu %d: an exclusive GPU has exactly one unit, found %d", g.Index, len(g.Units))
	}
	g.Units[0].Fraction = 1
	return nil
}

func (g *GPU) normalizeTimeSliced() error {
	if g.Replicas < 1 {
		return fmt.Errorf("gpu %d: time-slicing with %d replicas", g.Index, g.Replicas)
	}
	if len(g.Units) > g.Replicas {
		return fmt.Errorf("gpu %d: %d time-slice units exceed %d replicas", g.Index, len(g.Units), g.Replicas)
	}
	for i := range g.Units {
		g.Units[i].Fraction = 1 / float64(g.Replicas)
	}
	return nil
}

func (g *GPU) normalizeMIG() error {
	geoC, geoM := MIGGeometry(g.Model)
	var compute, memory int
	var sum float64
	for i := range g.Units {
		u := &g.Units[i]
		if u.ComputeSlices < 1 || u.MemorySlices < 1 {
			return fmt.Errorf("gpu %d: MIG unit %s has no slices", g.Index, u.ID)
		}
		compute += u.ComputeSlices
		memory += u.MemorySlices
		u.Fraction = max(float64(u.ComputeSlices)/float64(geoC), float64(u.MemorySlices)/float64(geoM))
		sum += u.Fraction
	}
	if compute > geoC || memory > geoM {
		return fmt.Errorf("gpu %d: MIG layout uses %d/%d compute and %d/%d memory slices", g.Index, compute, geoC, memory, geoM)
	}
	if sum > 1 {
		for i := range g.Units {
			g.Units[i].Fraction /= sum
		}
	}
	return nil
}
