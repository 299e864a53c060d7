package cost

// share moves unallocated dollars onto pod lines in proportion to what each
// pod already pays for that resource (the AWS split-cost-allocation and
// OpenCost shareIdle semantics): GPU by allocated GPU cost, CPU/memory by
// CPU+memory cost. Within a group with no payers the dollars stay on the
// unallocated line, so nothing is lost. Hours are never moved.
func share(a *Allocation, mode IdleShare) error {
	if mode == ShareNone {
		return nil
	}
	groups := map[string][]int{}
	for i := range a.Lines {
		l := &a.Lines[i]
		if !l.Priced {
			continue
		}
		key := ""
		if mode == ShareNode {
			key = l.Node.Name
		}
		groups[key] = append(groups[key], i)
	}
	for _, idx := range groups {
		shareGroup(a.Lines, idx)
	}
	return nil
}

func shareGroup(lines []Line, idx []int) {
	var gpuPool, cpuPool, gpuWeight, cpuWeight float64
	for _, i := range idx {
		l := &lines[i]
		if l.Pod == nil {
			gpuPool += l.GPUCost.Unallocated
			cpuPool += l.CPU + l.Memory
			continue
		}
		gpuWeight += l.GPUCost.Allocated()
		cpuWeight += l.CPU + l.Memory
	}
	for _, i := range idx {
		l := &lines[i]
		switch {
		case l.Pod == nil:
			if gpuWeight > 0 {
				l.GPUCost.Unallocated = 0
			}
			if cpuWeight > 0 {
				l.CPU, l.Memory = 0, 0
			}
		default:
			if gpuWeight > 0 {
				l.GPUCost.Unallocated = gpuPool * l.GPUCost.Allocated() / gpuWeight
			}
			if cpuWeight > 0 {
				l.CPUMemoryUnallocated = cpuPool * (l.CPU + l.Memory) / cpuWeight
			}
		}
	}
}
