package cluster

import "fmt"

// Normalize sets every unit's Fraction from its kind: 1 for a whole GPU,
// 1/replicas for a time-slice replica, max(compute/C, memory/M) for a
// MIG instance (split equally among the units sharing one DRA MIG
// device), scaled down when a GPU's layout would sum past 1 (4g+3g is
// 4/7 + 4/8 > 1), and for a HAMi vGPU the larger of the compute and memory
// share its pod asked for (HAMiShare), scaled down likewise, the free
// vGPUs sharing what is left; a NeuronCore unit is 1/cores of its Neuron
// device. Afterwards the fractions of every GPU sum to
// at most 1.
func (g *GPU) Normalize() error {
	switch g.Sharing {
	case Exclusive, "":
		return g.normalizeWhole()
	case TimeSlicing:
		return g.normalizeTimeSliced()
	case MIG:
		return g.normalizeMIG()
	case HAMi:
		return g.normalizeHAMi()
	case NeuronCores:
		return g.normalizeNeuronCores()
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
	// Units naming the same DRA device are the shares of one MIG device
	// a ResourceClaim holds for several pods: the device's slices count
	// once and its fraction is split equally among them.
	shares := map[string]int{}
	for i := range g.Units {
		if d := g.Units[i].Device; d != "" {
			shares[d]++
		}
	}
	counted := map[string]bool{}
	for i := range g.Units {
		u := &g.Units[i]
		if u.ComputeSlices < 1 || u.MemorySlices < 1 {
			return fmt.Errorf("gpu %d: MIG unit %s has no slices", g.Index, u.ID)
		}
		k := max(shares[u.Device], 1)
		if u.Device == "" || !counted[u.Device] {
			compute += u.ComputeSlices
			memory += u.MemorySlices
			counted[u.Device] = u.Device != ""
		}
		u.Fraction = max(float64(u.ComputeSlices)/float64(geoC), float64(u.MemorySlices)/float64(geoM)) / float64(k)
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

// HAMiShare is the share of its physical GPU a HAMi vGPU grants, as MIG
// is priced: the larger of the compute share (nvidia.com/gpucores, percent
// of the GPU's SMs) and the memory share (nvidia.com/gpumem-percentage, or
// nvidia.com/gpumem MiB of the GPU's gpuMiB), each at most 1. A MiB ask on
// a GPU of unknown memory counts as the replica share 1/replicas. 0: the
// unit is free (no ask).
func HAMiShare(u *Unit, gpuMiB int64, replicas int) float64 {
	compute := float64(u.CoresPercent) / 100
	var memory float64
	switch {
	case u.MemoryPercent > 0:
		memory = float64(u.MemoryPercent) / 100
	case u.MemoryMiB > 0 && gpuMiB > 0:
		memory = float64(u.MemoryMiB) / float64(gpuMiB)
	case u.MemoryMiB > 0:
		memory = 1 / float64(max(replicas, 1))
	}
	return min(max(compute, memory), 1)
}

func (g *GPU) normalizeHAMi() error {
	if g.Replicas < 1 || len(g.Units) > g.Replicas {
		return fmt.Errorf("gpu %d: HAMi GPU with %d vGPUs and %d replicas", g.Index, len(g.Units), g.Replicas)
	}
	var held float64
	free := 0
	for i := range g.Units {
		u := &g.Units[i]
		if u.CoresPercent < 0 || u.MemoryPercent < 0 || u.MemoryMiB < 0 {
			return fmt.Errorf("gpu %d: HAMi unit %s asks a negative share", g.Index, u.ID)
		}
		u.Fraction = HAMiShare(u, g.MemoryMiB, g.Replicas)
		if u.Fraction == 0 {
			free++
		}
		held += u.Fraction
	}
	if held > 1 {
		for i := range g.Units {
			g.Units[i].Fraction /= held
		}
		held = 1
	}
	if free > 0 {
		rest := (1 - held) / float64(free)
		for i := range g.Units {
			if g.Units[i].Fraction == 0 {
				g.Units[i].Fraction = rest
			}
		}
	}
	return nil
}

// normalizeNeuronCores gives each NeuronCore of a device 1/Replicas (the
// device's cores): a pod holding k of them holds k/cores of the device,
// its share of the device's cost as a MIG instance's is of its GPU's.
func (g *GPU) normalizeNeuronCores() error {
	if g.Replicas < 1 || len(g.Units) != g.Replicas {
		return fmt.Errorf("gpu %d: Neuron device with %d NeuronCore units and %d cores", g.Index, len(g.Units), g.Replicas)
	}
	for i := range g.Units {
		if g.Units[i].Kind != NeuronCoreUnit {
			return fmt.Errorf("gpu %d: unit %s of a NeuronCore-shared device is a %q, not a NeuronCore", g.Index, g.Units[i].ID, g.Units[i].Kind)
		}
		g.Units[i].Fraction = 1 / float64(g.Replicas)
	}
	return nil
}

// NeuronCoreUnitID is the ID of NeuronCore core (its index on the
// instance, as neuron-monitor numbers it) of device dev of node.
func NeuronCoreUnitID(node string, dev, core int) string {
	return fmt.Sprintf("%s/gpu%d/nc%d", node, dev, core)
}
