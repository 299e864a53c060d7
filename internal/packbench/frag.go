package packbench

import (
	"cmp"
	"slices"
	"strings"
)

// typicalPercent is the popularity cut: the most common pod specs that
// together make up this percentage of the trace's pods.
const typicalPercent = 95

// typicalPod is one popular pod spec and its renormalised frequency.
type typicalPod struct {
	cpu    int64
	mem    int64 // 0 unless learned with memory
	num    int
	milli  int64
	models uint64
	freq   float64
}

// typicalKey is what makes two pods the same spec: CPU (the scheduler's
// non-zero request), GPU milli, GPU count and model constraint.
type typicalKey struct {
	cpu    int64
	mem    int64
	milli  int64
	num    int
	models string
}

// typicalPods learns the typical-pod distribution from the un-inflated
// trace, as FGD does: specs by count, descending (ties by key, descending),
// taken until they cover typicalPercent of the pods, with frequencies
// renormalised over the specs taken.
func typicalPods(c *cluster, pods []Pod, withMem bool) []typicalPod {
	counts := map[typicalKey]int{}
	for _, p := range pods {
		k := typicalKey{cpu: nonZeroCPU(p.CPU), milli: p.Milli, num: p.NumGPU, models: strings.Join(p.Models, "|")}
		if withMem {
			k.mem = p.Mem
		}
		counts[k]++
	}
	keys := make([]typicalKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b typicalKey) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(b.cpu, a.cpu), cmp.Compare(b.milli, a.milli),
			cmp.Compare(b.num, a.num), strings.Compare(b.models, a.models), cmp.Compare(b.mem, a.mem))
	})
	total := float64(len(pods))
	want := typicalPercent * total / 100
	var typical []typicalPod
	var covered float64
	for _, k := range keys {
		if covered >= want {
			break
		}
		covered += float64(counts[k])
		var models []string
		if k.models != "" {
			models = strings.Split(k.models, "|")
		}
		typical = append(typical, typicalPod{cpu: k.cpu, mem: k.mem, num: k.num, milli: k.milli, models: c.modelSet(models),
			freq: float64(counts[k]) / total})
	}
	for i := range typical {
		typical[i].freq /= covered / total
	}
	return typical
}

// nonZeroCPU is the scheduler's view of a CPU request: 100m when unset.
func nonZeroCPU(cpu int64) int64 {
	if cpu == 0 {
		return 100
	}
	return cpu
}

// fragBin says why a typical pod cannot use (part of) a node's idle GPUs.
// The bins are summed separately and in this order, as the artifact sums
// them, so that float results match it bit for bit.
type fragBin int

const (
	lackBoth    fragBin = iota // GPU pod: neither GPUs nor CPU fit
	lackGPU                    // GPU pod: CPU fits, GPUs do not; or the GPUs too small when it fits
	satisfied                  // GPU pod fits: the GPUs it could use (not fragment)
	lackCPU                    // GPU pod: GPUs fit, CPU does not
	cpuPodFits                 // CPU-only pod: every idle GPU is fragment
	cpuPodLacks                // CPU-only pod that does not fit either
	noAccess                   // GPU pod that may not run on the node's model
	numBins
)

// fragBins is a node's (or the cluster's) fragmentation by bin.
type fragBins [numBins]float64

// total is the fragmentation: every bin but satisfied.
func (b *fragBins) total() float64 {
	var s float64
	for i, v := range b {
		if fragBin(i) != satisfied {
			s += v
		}
	}
	return s
}

func (b *fragBins) add(o *fragBins) {
	for i := range b {
		b[i] += o[i]
	}
}

// fragOf is FGD's node fragmentation: the GPU milli that a typical pod,
// drawn from typical, could not use on this node, in expectation.
func fragOf(typical []typicalPod, model int, cpu, mem int64, free []int64) fragBins {
	var idle int64
	for _, f := range free {
		idle += f
	}
	var bins fragBins
	for i := range typical {
		t := &typical[i]
		bin, small := classify(t, model, cpu, mem, free)
		if bin == satisfied {
			bins[lackGPU] += t.freq * float64(small)
			bins[satisfied] += t.freq * float64(idle-small)
			continue
		}
		bins[bin] += t.freq * float64(idle)
	}
	return bins
}

// classify puts typical pod t in its bin for the node; when t fits, small
// is the free milli on GPUs too small for it.
func classify(t *typicalPod, model int, cpu, mem int64, free []int64) (bin fragBin, small int64) {
	cpuFits := cpu >= t.cpu && mem >= t.mem
	switch {
	case t.milli == 0 && cpuFits:
		return cpuPodFits, 0
	case t.milli == 0:
		return cpuPodLacks, 0
	case t.models&(1<<model) == 0:
		return noAccess, 0
	}
	k := 0
	for _, f := range free {
		if f >= t.milli {
			k++
		} else {
			small += f
		}
	}
	switch {
	case k >= t.num && cpuFits:
		return satisfied, small
	case k >= t.num:
		return lackCPU, 0
	case cpuFits:
		return lackGPU, 0
	}
	return lackBoth, 0
}
