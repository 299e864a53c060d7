package packbench

import (
	"math/rand"
	"slices"
	"strings"
)

// DefaultTune is the protocol's inflation target: arrived GPU demand grows
// to 130% of cluster GPU capacity.
const DefaultTune = 1.3

// informerDraws are the random draws the artifact's scheduler informers
// consume between inflating the workload and ranking the nodes.
const informerDraws = 10

// Workload is one seed's arrival sequence and node ranking.
type Workload struct {
	// Arrivals are the trace's pods in shuffled order, then pods resampled
	// with replacement until demand reaches the tune target — or, when the
	// trace asks for more, the shuffled order with random pods removed.
	Arrivals []Pod
	// Prio is each node's tie-break rank, for the nodes in name order.
	Prio []int
}

// NewWorkload builds seed's workload exactly as the FGD artifact does, draw
// for draw on Go's math/rand v1 stream (fgd-protocol.md, section 1.2).
// Demand below tune × the nodes' GPU capacity is inflated to it by
// resampling; demand above it is down-sampled by removing pods at random,
// as the artifact's TunePodsByNodeTotalResource does; demand exactly at the
// target is left as it is.
func NewWorkload(nodes []Node, pods []Pod, seed int64, tune float64) Workload {
	rng := rand.New(rand.NewSource(seed))
	rng.Int() // the artifact logs a draw right after seeding

	sorted := byName(pods)
	order := slices.Clone(sorted)
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })

	var capacity int64
	for _, n := range nodes {
		capacity += int64(n.GPUs) * milliPerGPU
	}
	var demand int64
	for _, p := range order {
		demand += p.GPUDemand()
	}
	target := tune * float64(capacity)
	switch {
	case float64(demand) > target:
		// Down-sampling: pods drawn uniformly from what is left of the
		// shuffled order are removed until demand is at most the target
		// (the multigpu mixes ask for more than 130% of capacity).
		for float64(demand) > target && len(order) > 0 {
			i := rng.Intn(len(order))
			demand -= order[i].GPUDemand()
			order = slices.Delete(order, i, i+1)
		}
	case float64(demand) < target:
		// The stop test adds the candidate's per-GPU milli, while demand
		// grows by its total: the artifact's quirk, kept for bit-exactness.
		for len(sorted) > 0 {
			p := sorted[rng.Intn(len(sorted))]
			if float64(demand+p.Milli) > target {
				break
			}
			order = append(order, p)
			demand += p.GPUDemand()
		}
	}

	for range informerDraws {
		rng.Float64()
	}
	return Workload{Arrivals: order, Prio: rng.Perm(len(nodes))}
}

func byName(pods []Pod) []Pod {
	s := slices.Clone(pods)
	slices.SortStableFunc(s, func(a, b Pod) int { return strings.Compare(a.Name, b.Name) })
	return s
}
