package packbench

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
)

// gpuShare is the share of the nodes' GPU capacity the trace asks for,
// divided by the larger of the shares of their CPU and memory it asks for:
// above 1 GPUs are the scarce resource.
func gpuShare(c *cluster, pods []Pod) float64 {
	var gpuCap, cpuCap, memCap, gpu, cpu, mem float64
	for i := range c.nodes {
		n := &c.nodes[i]
		gpuCap += float64(n.GPUs * milliPerGPU)
		cpuCap += float64(n.CPUCap)
		memCap += float64(n.MemCap)
	}
	for _, q := range pods {
		gpu += float64(q.GPUDemand())
		cpu += float64(q.CPU)
		mem += float64(q.Mem)
	}
	other := max(cpu/cpuCap, mem/memCap)
	if other == 0 {
		return math.Inf(1)
	}
	return (gpu / gpuCap) / other
}

// gpusScarce says whether the trace asks a larger share of the nodes' GPU
// capacity than of their CPU and of their memory. Only then does packing
// GPUs tightly matter more than FGD's fragmentation, whose weight drops.
func gpusScarce(c *cluster, pods []Pod) bool { return gpuShare(c, pods) >= 1 }

// potentialShare is the gpuShare from which the potential term is on: GPUs
// scarce or nearly so. When CPU binds clearly first (the cpu-double mix,
// 0.61) the term would trade CPU balance for GPU combinations that the CPU
// left cannot host; at cpu250 (0.98: CPU 100%, GPU 98% of capacity) it
// still gains 0.25 to 0.3 points (seeds 42-51 and 52-61).
const potentialShare = 0.9

// modelPotentials prices, per GPU model, the fractional requests that may
// run on it (all of them in the trace, not only the typical ones), and
// returns each model's potential table; models with the same requests
// share one.
func modelPotentials(c *cluster, pods []Pod) ([]*[milliPerGPU + 1]float64, error) {
	tables := make([]*[milliPerGPU + 1]float64, len(c.models))
	byRequests := map[string]*[milliPerGPU + 1]float64{}
	for m := range c.models {
		sizes, counts := fractionalRequests(c, pods, m)
		key := fmt.Sprint(sizes, counts)
		if t, ok := byRequests[key]; ok {
			tables[m] = t
			continue
		}
		y, err := gpuPrices(sizes, counts)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", c.models[m], err)
		}
		tables[m] = gpuPotential(sizes, y)
		byRequests[key] = tables[m]
	}
	return tables, nil
}

// maxPricedSizes caps the request sizes the LP prices: the dense simplex
// is fast and stable for a few dozen (openb has 20), not for hundreds.
const maxPricedSizes = 32

// fractionalRequests are the sizes of the one-GPU fractional requests that
// may run on model m, largest first, and how many pods ask for each; only
// the maxPricedSizes most common sizes, so rarer ones get no price.
func fractionalRequests(c *cluster, pods []Pod, m int) ([]int64, []float64) {
	count := map[int64]float64{}
	for _, q := range pods {
		if q.NumGPU == 1 && q.Milli > 0 && q.Milli < milliPerGPU && c.modelSet(q.Models)&(1<<m) != 0 {
			count[q.Milli]++
		}
	}
	sizes := slices.SortedFunc(maps.Keys(count), func(a, b int64) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(b, a))
	})
	sizes = sizes[:min(len(sizes), maxPricedSizes)]
	slices.Sort(sizes)
	slices.Reverse(sizes)
	counts := make([]float64, len(sizes))
	for i, s := range sizes {
		counts[i] = count[s]
	}
	return sizes, counts
}

// gpuPotential is V[f], the greatest total price of requests that fit in f
// free milli: what a GPU with f free can still absorb at the LP's prices.
func gpuPotential(sizes []int64, y []float64) *[milliPerGPU + 1]float64 {
	var v [milliPerGPU + 1]float64
	for f := 1; f <= milliPerGPU; f++ {
		v[f] = v[f-1]
		for i, s := range sizes {
			if s <= int64(f) {
				v[f] = max(v[f], v[f-int(s)]+y[i])
			}
		}
	}
	return &v
}
