package cost

import (
	"slices"
	"strings"
)

// WorkloadIdle is one GPU workload's idle figures in an allocation: what
// the idle-cause split divides.
type WorkloadIdle struct {
	Workload string
	// IdleGPUHours are measured GPU-hours below the idle threshold.
	IdleGPUHours float64
	// IdleUSD is allocated-but-idle GPU dollars on priced nodes; Priced
	// says whether any of its lines was priced (else IdleUSD is absent).
	IdleUSD float64
	Priced  bool
}

// IdleByWorkload sums the pod lines of every GPU workload, sorted by key.
func (a *Allocation) IdleByWorkload() []WorkloadIdle {
	idx := map[string]int{}
	var out []WorkloadIdle
	for i := range a.Lines {
		l := &a.Lines[i]
		if l.Pod == nil || len(l.Pod.GPUs) == 0 {
			continue
		}
		k := l.Pod.WorkloadKey()
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, WorkloadIdle{Workload: k})
		}
		w := &out[j]
		w.IdleGPUHours += l.GPUHours.Idle
		if l.Priced {
			w.IdleUSD += l.GPUCost.AllocatedIdle
			w.Priced = true
		}
	}
	slices.SortFunc(out, func(x, y WorkloadIdle) int { return strings.Compare(x.Workload, y.Workload) })
	return out
}
