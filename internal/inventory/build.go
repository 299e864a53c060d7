package inventory

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Build takes the inventory of s at its window's end: the GPU nodes alive
// then (nodes deleted earlier are counted, not listed), the units held by
// the pods running then, and the prices prices gives (nil: every node
// unpriced). catalog, when set, says how many GPUs an instance type has,
// so that a GPU instance advertising none is found even without GPU
// labels.
func Build(s *cluster.Prepared, prices pricing.Pricer, catalog InstanceCatalog) *Inventory {
	b := newBuilder(s, prices, catalog)
	inv := &Inventory{Source: s.Source(), At: s.Window().End, Nodes: []Node{}, Findings: []Finding{}}
	for i := range s.Nodes() {
		n := &s.Nodes()[i]
		switch {
		case !b.alive(n) && b.isGPUNode(n):
			inv.Totals.DeletedNodes++
		case !b.alive(n):
		case b.isGPUNode(n):
			node, findings := b.node(n)
			inv.Nodes = append(inv.Nodes, node)
			inv.Findings = append(inv.Findings, findings...)
		default:
			inv.Totals.OtherNodes++
		}
	}
	sort.Slice(inv.Nodes, func(i, j int) bool { return inv.Nodes[i].Name < inv.Nodes[j].Name })
	sortFindings(inv.Findings)
	inv.Summary = summarize(inv.Nodes)
	inv.DRA = draOf(s.DRA())
	total(inv)
	inv.Notes = b.notes(inv, s.Notes())
	return inv
}

// builder holds what every node's entry needs: the window's end, the pods
// running then by node, the units they hold, and the prices.
type builder struct {
	end     time.Time
	pricer  pricing.Pricer  // nil: no prices loaded
	catalog InstanceCatalog // nil: no catalog
	prices  *nodeprice.Memo // nil: no prices loaded
	pods    map[string][]*cluster.Pod
	inUse   map[string]bool
	// queued are the units held by pods of Kueue-admitted workloads.
	queued  map[string]bool
	noLabel int // GPU nodes without any label
}

func newBuilder(s *cluster.Prepared, prices pricing.Pricer, catalog InstanceCatalog) *builder {
	b := &builder{end: s.Window().End, pricer: prices, catalog: catalog, pods: map[string][]*cluster.Pod{}, inUse: map[string]bool{}, queued: map[string]bool{}}
	admitted := s.KueueAdmitted()
	if prices != nil {
		b.prices = nodeprice.New(prices)
	}
	for i := range s.Pods() {
		p := &s.Pods()[i]
		if !b.running(p) {
			continue
		}
		b.pods[p.Node] = append(b.pods[p.Node], p)
		_, queued := admitted[p.Key()]
		for _, h := range p.GPUs {
			b.inUse[h.UnitID] = true
			b.queued[h.UnitID] = b.queued[h.UnitID] || queued
		}
	}
	return b
}

// running reports whether p is bound and running at the window's end.
func (b *builder) running(p *cluster.Pod) bool {
	return p.Node != "" && p.Start.Before(b.end) && (p.End.IsZero() || p.End.After(b.end))
}

// alive reports whether n still exists at the window's end.
func (b *builder) alive(n *cluster.Node) bool {
	return n.Deleted.IsZero() || !n.Deleted.Before(b.end)
}

// node builds one node's entry and its findings.
func (b *builder) node(n *cluster.Node) (Node, []Finding) {
	exp, from := b.expected(n)
	out := Node{
		Name: n.Name, GPUModel: b.model(n), Vendor: n.Vendor(), DeviceKind: cluster.DeviceKind(n.Vendor()), Product: n.Labels[lblProduct], GPUs: len(n.GPUs),
		ExpectedGPUs: exp, ExpectedFrom: from,
		MIG:   MIG{Strategy: migStrategy(n), Config: n.Labels[lblMIGConfig], State: n.Labels[lblMIGState]},
		Cloud: n.Cloud, Region: n.Region, Zone: n.Zone, InstanceType: n.InstanceType, CapacityType: orUnknown(n.Capacity),
	}
	b.layout(n, &out)
	b.stack(n, &out)
	b.price(n, &out)
	if len(n.Labels) == 0 {
		b.noLabel++
	}
	findings := check(n, &out)
	out.Findings = len(findings)
	return out, findings
}

// layout fills the node's per-GPU units, sharing and replicas.
func (b *builder) layout(n *cluster.Node, out *Node) {
	out.Layout = make([]GPULayout, 0, len(n.GPUs))
	modes := map[string]bool{}
	var order []string
	for _, g := range n.GPUs {
		l := b.gpuLayout(n, &g)
		out.Layout = append(out.Layout, l)
		out.Units += l.Units
		out.UnitsInUse += l.UnitsInUse
		if l.Sharing == sharingTimeSlicing || l.Sharing == sharingMPS {
			out.TimeSliceReplicas = max(out.TimeSliceReplicas, l.Replicas)
		}
		if !modes[l.Sharing] {
			modes[l.Sharing] = true
			order = append(order, l.Sharing)
		}
	}
	sort.Strings(order)
	out.Sharing = sharingNone
	if len(order) > 0 {
		out.Sharing = strings.Join(order, "+")
	}
}

func (b *builder) gpuLayout(n *cluster.Node, g *cluster.GPU) GPULayout {
	l := GPULayout{Index: g.Index, Sharing: sharingOf(n, g), Replicas: max(g.Replicas, 1), Units: len(g.Units)}
	if len(g.Units) > 0 {
		l.Mechanism = cluster.Mechanism(g, &g.Units[0])
	}
	for _, u := range g.Units {
		if b.inUse[u.ID] {
			l.UnitsInUse++
		}
		if b.queued[u.ID] {
			l.Admission = cluster.ViaKueue
		}
	}
	if g.Sharing == cluster.MIG {
		l.Replicas = 1
		l.Profiles = profiles(g.Units)
	}
	return l
}

// profiles are a MIG GPU's instance profiles, largest first; a DRA MIG
// device shared by several pods (units naming one device) is one.
func profiles(units []cluster.Unit) []string {
	var us []cluster.Unit
	seen := map[string]bool{}
	for _, u := range units {
		if u.Device != "" && seen[u.Device] {
			continue
		}
		seen[u.Device] = true
		us = append(us, u)
	}
	sort.SliceStable(us, func(i, j int) bool {
		if us[i].ComputeSlices != us[j].ComputeSlices {
			return us[i].ComputeSlices > us[j].ComputeSlices
		}
		if us[i].MemorySlices != us[j].MemorySlices {
			return us[i].MemorySlices > us[j].MemorySlices
		}
		return us[i].Profile < us[j].Profile
	})
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.Profile
	}
	return out
}

// price prices the node, or says why it is unpriced.
func (b *builder) price(n *cluster.Node, out *Node) {
	if b.prices == nil {
		out.Unpriced = "no prices loaded"
		return
	}
	p, err := b.prices.Node(n)
	if err != nil {
		out.Unpriced = unpricedReason(err)
		return
	}
	out.Price = &Price{NodeUSDPerHour: p.NodeUSDPerHour, GPUUSDPerHour: p.GPUUSDPerHour, Origin: p.Origin, AsOf: p.AsOf, Source: p.Source}
}

func unpricedReason(err error) string {
	var ue *pricing.UnpricedError
	if errors.As(err, &ue) {
		return ue.Reason
	}
	return err.Error()
}

// notes are the snapshot's own notes and what the inventory could not see.
func (b *builder) notes(inv *Inventory, snapNotes []string) []string {
	out := append([]string(nil), snapNotes...)
	out = append(out, pricing.WarningsOf(b.pricer)...)
	if d := inv.Totals.DeletedNodes; d > 0 {
		out = append(out, fmt.Sprintf("%d GPU node(s) were deleted within the window and are not listed", d))
	}
	if b.noLabel > 0 {
		out = append(out, fmt.Sprintf("%d GPU node(s) carry no labels in this source (Prometheus without kube_node_labels?): "+
			"their feature discovery, MIG configuration and operator components are unknown", b.noLabel))
	}
	return out
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// draOf is the DRA section: the drivers, the device classes and how many
// GPU claims are allocated; nil when the source read no DRA API.
func draOf(d *cluster.DRAInfo) *DRA {
	if d == nil {
		return nil
	}
	out := &DRA{Drivers: d.Drivers, DeviceClasses: d.DeviceClasses, GPUClaims: len(d.Claims), ClaimTemplates: len(d.Templates)}
	if out.Drivers == nil {
		out.Drivers = []cluster.DRADriver{}
	}
	if out.DeviceClasses == nil {
		out.DeviceClasses = []cluster.DeviceClass{}
	}
	return out
}
