package ledger

import "github.com/gpuwise/gpuwise/internal/rightsize"

// Shapes are the GPU shapes the ledger counts, by workload key
// ("namespace/Kind/name"): the right-sizing recommendation (or the
// in-cluster alternative the ledger took for a cheaper model no node has)
// of every item of a shape action in the plan. A workload that is not here
// keeps its current GPUs: right-sizing may recommend another shape, but the
// consolidation plan reverts it or nothing realises it (NotCounted says
// why). Generated files take their GPU shapes from here, so that no file
// contradicts an action.
func (l *Ledger) Shapes() map[string]rightsize.GPURec {
	out := map[string]rightsize.GPURec{}
	for i := range l.Actions {
		a := &l.Actions[i]
		if a.Lever != LeverShape {
			continue
		}
		for j := range a.Items {
			if g := a.Items[j].Shape(); g != nil {
				out[g.Workload] = *g
			}
		}
	}
	return out
}
