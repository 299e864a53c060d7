package cost

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Allocation is the result of allocating a snapshot's node cost.
type Allocation struct {
	Snapshot *cluster.Prepared
	Lines    []Line
	// NodeCost is the priced GPU nodes' cost over the window.
	NodeCost float64
	// Prices holds each priced node's price, by node name.
	Prices map[string]pricing.NodePrice
	// Unpriced maps an unpriced node to the reason.
	Unpriced map[string]string
	// CPUOnlyNodes counts nodes without GPUs, which are out of scope.
	CPUOnlyNodes int
	// Options are the settings it was allocated with.
	Options Options
	// OffNode lists pods that ran in the window only while their node did
	// not exist (deleted before, or created after): none of their time is
	// counted. Clipped lists pods that outlived their node (or started
	// before it): only their time on the node is counted. Both are noted,
	// never dropped silently.
	OffNode, Clipped []string
	// PriceWarnings are the price source's warnings (override rules that
	// never apply), shown as notes.
	PriceWarnings []string
}

// Allocate prices every GPU node with prices, attributes its cost for the
// window to the pods that held its GPUs, CPU and memory, leaves the rest
// as unallocated lines and applies the idle sharing mode of opts.
func Allocate(s *cluster.Prepared, pricer pricing.Pricer, opts Options) (*Allocation, error) {
	if pricer == nil {
		return nil, errors.New("prices: no price catalog")
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	prices := nodeprice.New(pricer)
	podsByNode := map[string][]*cluster.Pod{}
	for i := range s.Pods() {
		p := &s.Pods()[i]
		podsByNode[p.Node] = append(podsByNode[p.Node], p)
	}
	a := &Allocation{Snapshot: s, Prices: map[string]pricing.NodePrice{}, Unpriced: map[string]string{}, Options: opts,
		PriceWarnings: pricing.WarningsOf(pricer)}
	for i := range s.Nodes() {
		n := &s.Nodes()[i]
		if !n.HasGPUs() {
			a.CPUOnlyNodes++
			continue
		}
		a.allocateNode(n, podsByNode[n.Name], s.Index(), prices, opts)
	}
	if err := share(a, opts.IdleShare); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *Allocation) allocateNode(n *cluster.Node, pods []*cluster.Pod, ix *cluster.Index, prices *nodeprice.Memo, opts Options) {
	price, err := prices.Node(n)
	priced := err == nil
	if priced {
		a.Prices[n.Name] = price
	} else {
		a.Unpriced[n.Name] = err.Error()
		price = pricing.NodePrice{}
	}
	w := a.Snapshot.Window()
	lifeSec := w.Clip(n.Created, n.Deleted)
	nodeHours := lifeSec / 3600
	if priced {
		a.NodeCost += price.NodeUSDPerHour * nodeHours
	}
	nb := nodeBudget{cpuCoreHours: n.CPUCores() * nodeHours, memGiBHours: n.MemoryGiB() * nodeHours}
	start := len(a.Lines)
	for _, p := range pods {
		from, to, ok := w.Interval(p.Start, p.End)
		if !ok {
			continue
		}
		heldSec := cluster.Window{Start: from, End: to}.Clip(n.Created, n.Deleted)
		if heldSec <= 0 {
			a.OffNode = append(a.OffNode, p.Key()+" on "+n.Name+nodeLife(n))
			continue
		}
		if heldSec < to.Sub(from).Seconds() {
			a.Clipped = append(a.Clipped, p.Key()+" on "+n.Name+nodeLife(n))
		}
		l := Line{Pod: p, Node: n, Priced: priced, Mechanism: cluster.PodMechanism(p, ix)}
		l.GPUHours = holdingHours(p, heldSec, ix, opts.IdleThreshold)
		cores, gib := podCPUMemory(p)
		nb.cpuUsed += cores * heldSec / 3600
		nb.memUsed += gib * heldSec / 3600
		l.CPU, l.Memory = cores*heldSec/3600, gib*heldSec/3600 // core-hours, GiB-hours; priced below
		a.Lines = append(a.Lines, l)
	}
	a.priceNodeLines(a.Lines[start:], n, price, priced, nodeHours, nb)
}

// nodeBudget tracks a node's CPU and memory hours against what pods held.
type nodeBudget struct {
	cpuCoreHours, memGiBHours float64
	cpuUsed, memUsed          float64
}

// scale is the factor that keeps held hours within capacity: OpenCost-style
// max(request, usage) can exceed a node, and the bill may not.
func scale(used, capacity float64) float64 {
	if used <= capacity || used == 0 {
		return 1
	}
	return capacity / used
}

func (a *Allocation) priceNodeLines(lines []Line, n *cluster.Node, price pricing.NodePrice, priced bool, nodeHours float64, nb nodeBudget) {
	cpuScale, memScale := scale(nb.cpuUsed, nb.cpuCoreHours), scale(nb.memUsed, nb.memGiBHours)
	gpu := price.GPUUSDPerHour
	un := Line{Node: n, Priced: priced, Mechanism: cluster.NodeMechanism(n)}
	un.GPUHours.Provisioned = float64(len(n.GPUs)) * nodeHours
	var allocated float64
	var cpuHeld, memHeld float64
	for i := range lines {
		l := &lines[i]
		h := l.GPUHours
		allocated += h.Allocated
		l.GPUCost = GPUCost{Active: gpu * h.Active, Unmeasured: gpu * h.Unmeasured}
		l.GPUCost.AllocatedIdle = gpu*h.Allocated - l.GPUCost.Active - l.GPUCost.Unmeasured
		cpuHeld += l.CPU * cpuScale
		memHeld += l.Memory * memScale
		l.CPU *= cpuScale * price.CPUUSDPerCoreHour
		l.Memory *= memScale * price.MemoryUSDPerGiBHour
	}
	un.GPUHours.Unallocated = math.Max(un.GPUHours.Provisioned-allocated, 0)
	un.GPUCost.Unallocated = gpu * un.GPUHours.Unallocated
	un.CPU = math.Max(nb.cpuCoreHours-cpuHeld, 0) * price.CPUUSDPerCoreHour
	un.Memory = math.Max(nb.memGiBHours-memHeld, 0) * price.MemoryUSDPerGiBHour
	a.Lines = append(a.Lines, un)
}

// holdingHours turns a pod's GPU holdings into fraction-weighted hours.
// Activity never covers more than the time the unit was held.
func holdingHours(p *cluster.Pod, heldSec float64, ix *cluster.Index, threshold float64) Hours {
	var h Hours
	for _, hd := range p.GPUs {
		ref, ok := ix.Units[hd.UnitID]
		if !ok {
			continue
		}
		f := ref.Unit.Fraction
		h.Allocated += f * heldSec / 3600
		if hd.Activity == nil {
			h.Unmeasured += f * heldSec / 3600
			continue
		}
		// A series longer than the holding (clock skew, a reused name) is
		// scaled down to the held time rather than counted twice.
		measured := math.Min(hd.Activity.Seconds, heldSec)
		k := 0.0
		if hd.Activity.Seconds > 0 {
			k = measured / hd.Activity.Seconds
		}
		h.Active += f * hd.Activity.ActiveSeconds * k / 3600
		h.Idle += f * hd.Activity.IdleSeconds(threshold) * k / 3600
		h.Unmeasured += f * (heldSec - measured) / 3600
		if sm := hd.SMActive; sm != nil && sm.Seconds > 0 {
			smMeasured := math.Min(sm.Seconds, heldSec)
			h.SMActive += f * sm.ActiveSeconds * smMeasured / sm.Seconds / 3600
			h.SMMeasured += f * smMeasured / 3600
		}
	}
	return h
}

// podCPUMemory is the pod's billable CPU cores and memory GiB: per container
// the larger of request and mean usage.
func podCPUMemory(p *cluster.Pod) (cores, gib float64) {
	for _, c := range p.Containers {
		cpu := float64(c.CPURequestMilli) / 1000
		if c.CPU != nil && c.CPU.Seconds > 0 {
			cpu = math.Max(cpu, c.CPU.Mean())
		}
		mem := float64(c.MemoryRequest)
		if c.Memory != nil && c.Memory.Seconds > 0 {
			mem = math.Max(mem, c.Memory.Mean())
		}
		cores += cpu
		gib += mem / (1 << 30)
	}
	return cores, gib
}

// nodeLife says when a node existed, for notes: " (created … , deleted …)".
func nodeLife(n *cluster.Node) string {
	var parts []string
	if !n.Created.IsZero() {
		parts = append(parts, "created "+n.Created.UTC().Format(time.RFC3339))
	}
	if !n.Deleted.IsZero() {
		parts = append(parts, "deleted "+n.Deleted.UTC().Format(time.RFC3339))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (node " + strings.Join(parts, ", ") + ")"
}

// UnpricedNodes lists unpriced nodes and why, sorted by name.
func (a *Allocation) UnpricedNodes() []string {
	out := make([]string, 0, len(a.Unpriced))
	for name, why := range a.Unpriced {
		out = append(out, fmt.Sprintf("%s: %s", name, why))
	}
	sort.Strings(out)
	return out
}
