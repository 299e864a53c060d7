package packbench

import (
	"fmt"
	"slices"
	"strings"
)

// Mix is a deterministic transform of a trace into another workload mix,
// after the FGD paper's workload variants, to check that a policy is not
// tuned to one trace.
type Mix struct {
	Name string
	// Doc says what the transform does, for reports.
	Doc   string
	apply func(nodes []Node, pods []Pod) []Pod
}

// Apply returns the transformed pods; pods is not modified.
func (m Mix) Apply(nodes []Node, pods []Pod) []Pod { return m.apply(nodes, slices.Clone(pods)) }

// Mixes are the derived workload mixes, the trace itself first.
var Mixes = []Mix{
	{Name: "default", Doc: "the trace as is", apply: func(_ []Node, p []Pod) []Pod { return p }},
	{Name: "cpu-half", Doc: "every pod's CPU request halved", apply: scaleCPU(1, 2)},
	{Name: "cpu-double", Doc: "every pod's CPU request doubled", apply: scaleCPU(2, 1)},
	{Name: "frac-high", Doc: "every second whole-GPU pod (in name order) removed, raising the fractional share of GPU pods from 44% to about 61%", apply: thin(isWholeGPU)},
	{Name: "frac-low", Doc: "every second fractional-GPU pod (in name order) removed, lowering the fractional share of GPU pods from 44% to about 28%", apply: thin(isFractional)},
	{Name: "multi-gpu", Doc: "every multi-GPU pod repeated 5 times, raising multi-GPU pods from 1.1% to 5.2% of GPU pods", apply: repeatClass(isMultiGPU, 5)},
	{Name: "cpu-pods-x2", Doc: "every CPU-only pod repeated twice, doubling their share of CPU demand (after the paper's cpu200 variant)", apply: repeatClass(isCPUOnly, 2)},
	{Name: "no-cpu-pods", Doc: "every CPU-only pod removed", apply: dropClass(isCPUOnly)},
	{Name: "gpu-spec", Doc: "every fourth GPU pod (in name order) constrained to one GPU model, picked in proportion to node counts among nodes with enough GPUs", apply: constrainModels(4)},
}

// MixByName finds a mix.
func MixByName(name string) (Mix, error) {
	for _, m := range Mixes {
		if m.Name == name {
			return m, nil
		}
	}
	names := make([]string, len(Mixes))
	for i, m := range Mixes {
		names[i] = m.Name
	}
	return Mix{}, fmt.Errorf("unknown mix %q, want one of %v", name, names)
}

func scaleCPU(num, den int64) func([]Node, []Pod) []Pod {
	return func(_ []Node, pods []Pod) []Pod {
		for i := range pods {
			pods[i].CPU = pods[i].CPU * num / den
		}
		return pods
	}
}

func isWholeGPU(p Pod) bool   { return p.NumGPU > 0 && p.Milli == milliPerGPU }
func isFractional(p Pod) bool { return p.NumGPU == 1 && p.Milli < milliPerGPU }

// thin removes every second pod of a class, in name order.
func thin(class func(Pod) bool) func([]Node, []Pod) []Pod {
	return func(_ []Node, pods []Pod) []Pod {
		pods = byName(pods)
		k := 0
		return slices.DeleteFunc(pods, func(p Pod) bool {
			if !class(p) {
				return false
			}
			k++
			return k%2 == 0
		})
	}
}

func isCPUOnly(p Pod) bool  { return p.NumGPU == 0 }
func isMultiGPU(p Pod) bool { return p.NumGPU > 1 }

// dropClass removes every pod of a class.
func dropClass(class func(Pod) bool) func([]Node, []Pod) []Pod {
	return func(_ []Node, pods []Pod) []Pod { return slices.DeleteFunc(pods, class) }
}

// repeatClass adds times-1 copies of every pod of a class, named <name>-r<i>.
func repeatClass(class func(Pod) bool, times int) func([]Node, []Pod) []Pod {
	return func(_ []Node, pods []Pod) []Pod {
		for _, p := range byName(pods) {
			if !class(p) {
				continue
			}
			for i := 1; i < times; i++ {
				c := p
				c.Name = fmt.Sprintf("%s-r%d", p.Name, i)
				pods = append(pods, c)
			}
		}
		return pods
	}
}

// constrainModels pins every every-th GPU pod (in name order) to one GPU
// model: the model of the next node, cycling through the nodes in name
// order, that has enough GPUs for the pod, so that models are picked in
// proportion to their node counts.
func constrainModels(every int) func([]Node, []Pod) []Pod {
	return func(nodes []Node, pods []Pod) []Pod {
		nodes = slices.Clone(nodes)
		slices.SortFunc(nodes, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
		pods = byName(pods)
		k, next := 0, 0
		for i := range pods {
			if pods[i].NumGPU == 0 {
				continue
			}
			if k++; k%every != 0 {
				continue
			}
			for range nodes {
				n := nodes[next%len(nodes)]
				next++
				if n.GPUs >= pods[i].NumGPU {
					pods[i].Models = []string{n.Model}
					break
				}
			}
		}
		return pods
	}
}
