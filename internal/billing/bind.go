package billing

import (
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

// NodeLife is a node as matching needs it: its providerID and its life
// (zero bounds: beyond the window).
type NodeLife struct {
	Name       string
	ProviderID string
	Created    time.Time
	Deleted    time.Time
	// GPUs is the node's physical GPU count: only GPU nodes are in the
	// cost report's scope; a CPU node's bill is kept apart.
	GPUs int
	// InstanceType and Capacity are how the node runs: the bill's rate
	// prices only that (a what-if on other capacity is the fallback's, or
	// the bill's rate of other nodes run that way).
	InstanceType string
	Capacity     string
}

// Match is the bill folded onto one window and one cluster's nodes: what
// each node was billed for the window's hours, and what no node claimed.
type Match struct {
	Bill          *Bill
	Start, End    time.Time
	nodes         map[string]*NodeBill
	resourceUSD   map[*Resource]float64 // in-window cost per resource
	attributedUSD map[*Resource]float64 // of which claimed by nodes
	// fallback is the fallback rate the Pricer used for each partly
	// billed node's unbilled hours.
	mu       sync.Mutex
	fallback map[string]float64
}

// NodeBill is one node's part of the bill in the window.
type NodeBill struct {
	Node       string
	ResourceID string
	// Hours is the node's life in the window; BilledHours the part of it
	// that bill charges cover (their union, not their sum).
	Hours, BilledHours float64
	// USD is the effective (amortized) cost of the covered hours;
	// CommittedUSD the part of it commitments covered.
	USD, CommittedUSD float64
	// CommittedListUSD is the list (on-demand) cost of the committed
	// charges that state one, and committedListed their amortized cost:
	// the commitment's realised discount is 1 − committedListed ÷
	// CommittedListUSD.
	CommittedListUSD, committedListed float64
	// Commitment names a commitment that covered its charges.
	Commitment   string
	Spot         bool
	GPU          bool
	InstanceType string
	Capacity     string
	// Shared says the charge is a scale set's, shared between its nodes
	// by node-hours.
	Shared bool
	// Matchable says the node's providerID names a cloud instance a bill
	// can charge.
	Matchable bool
}

// Rate is the node's effective hourly rate over its billed hours.
func (n *NodeBill) Rate() float64 {
	if n.BilledHours <= 0 {
		return 0
	}
	return n.USD / n.BilledHours
}

type span struct{ from, to int64 }

// Bind matches the bill's compute charges to nodes over [start, end).
// A charge period's cost belongs to the time its nodes existed in it (an
// instance billed for an hour it joined the cluster in is that node's for
// the hour), shared by node-seconds when several nodes bill as one
// resource (a scale set); the part in the window is the part of that
// time inside the window. A charge no node existed for is unmatched, pro
// rata to its overlap with the window.
func (b *Bill) Bind(start, end time.Time, nodes []NodeLife) *Match {
	m := &Match{Bill: b, Start: start, End: end, nodes: map[string]*NodeBill{},
		resourceUSD: map[*Resource]float64{}, attributedUSD: map[*Resource]float64{}, fallback: map[string]float64{}}
	w := span{start.Unix(), end.Unix()}
	members := map[*Resource][]int{}
	lives := make([]span, len(nodes))
	nbs := make([]*NodeBill, len(nodes))
	for i, n := range nodes {
		lives[i] = span{lifeStart(n.Created, math.MinInt64), lifeStart(n.Deleted, math.MaxInt64)}
		life := intersect(lives[i], w)
		nb := &NodeBill{Node: n.Name, GPU: n.GPUs > 0, Hours: float64(max(life.to-life.from, 0)) / 3600,
			InstanceType: n.InstanceType, Capacity: n.Capacity}
		nbs[i] = nb
		m.nodes[n.Name] = nb
		inst, group := nodeKeys(n.ProviderID)
		nb.Matchable = inst != ""
		r := b.resources[inst]
		if r == nil && group != "" {
			r = b.resources[group]
		}
		if r != nil {
			members[r] = append(members[r], i)
			nb.ResourceID, nb.Spot, nb.Commitment = r.ID, r.Spot, r.Commitment
		}
	}
	covered := make([][]span, len(nodes))
	for _, r := range b.resources {
		ms := members[r]
		for _, j := range ms {
			nbs[j].Shared = len(ms) > 1 || isScaleSet(r.ID)
		}
		var usd float64
		for ri := range r.runs {
			c := &r.runs[ri]
			if len(ms) == 0 {
				// Unclaimed: pro rata to the window, for the whole run at once.
				in := intersect(span{c.start, c.end()}, w)
				usd += c.eff * float64(max(in.to-in.from, 0)) / float64(c.step)
				continue
			}
			// The run's periods that overlap the window, one charge each.
			step := int64(c.step)
			first := max((w.from-c.start)/step, 0)
			last := min((w.to-c.start+step-1)/step, int64(c.n))
			for k := first; k < last; k++ {
				ps := span{c.start + k*step, c.start + (k+1)*step}
				var total int64
				for _, j := range ms {
					o := intersect(ps, lives[j])
					total += max(o.to-o.from, 0)
				}
				if total == 0 {
					usd += c.eff * overlapFrac(period{ps.from, ps.to}, w)
					continue
				}
				for _, j := range ms {
					in := intersect(intersect(ps, lives[j]), w)
					if in.to <= in.from {
						continue
					}
					share := float64(in.to-in.from) / float64(total)
					nbs[j].USD += c.eff * share
					nbs[j].CommittedUSD += c.committed * share
					if c.committedList > 0 {
						nbs[j].CommittedListUSD += c.committedList * share
						nbs[j].committedListed += c.committed * share
					}
					usd += c.eff * share
					m.attributedUSD[r] += c.eff * share
					covered[j] = addSpan(covered[j], in)
				}
			}
		}
		m.resourceUSD[r] = usd
	}
	for i := range nodes {
		nbs[i].BilledHours = float64(unionLen(covered[i])) / 3600
	}
	return m
}

// isScaleSet says whether a resource id is an Azure scale set's (billed
// for all its VMs).
func isScaleSet(id string) bool {
	l := strings.ToLower(id)
	return strings.Contains(l, "/virtualmachinescalesets/") && !strings.Contains(l, "/virtualmachines/")
}

func lifeStart(t time.Time, def int64) int64 {
	if t.IsZero() {
		return def
	}
	return t.Unix()
}

func intersect(a, b span) span { return span{max(a.from, b.from), min(a.to, b.to)} }

func overlapFrac(p period, w span) float64 {
	in := intersect(span{p.start, p.end}, w)
	if in.to <= in.from || p.end <= p.start {
		return 0
	}
	return float64(in.to-in.from) / float64(p.end-p.start)
}

// unionLen is the length of the union of spans, in seconds.
func unionLen(s []span) int64 {
	sort.Slice(s, func(i, j int) bool { return s[i].from < s[j].from })
	var total int64
	var cur span
	for i, x := range s {
		if i == 0 || x.from > cur.to {
			total += max(cur.to-cur.from, 0)
			cur = x
			continue
		}
		cur.to = max(cur.to, x.to)
	}
	if len(s) > 0 {
		total += cur.to - cur.from
	}
	return total
}

// Node is the node's part of the bill; nil for a node not bound.
func (m *Match) Node(name string) *NodeBill { return m.nodes[name] }

// unusedUSD is the unused commitment cost in the window, by commitment.
func (m *Match) unusedUSD() map[string]float64 {
	out := map[string]float64{}
	w := span{m.Start.Unix(), m.End.Unix()}
	for id, ps := range m.Bill.unused {
		for p, v := range ps {
			if f := overlapFrac(p, w); f > 0 {
				out[id] += v * f
			}
		}
	}
	return out
}

// splitUSD is the split cost allocation per namespace in the window.
func (m *Match) splitUSD() map[string]float64 {
	out := map[string]float64{}
	w := span{m.Start.Unix(), m.End.Unix()}
	for ns, ps := range m.Bill.split {
		for p, v := range ps {
			if f := overlapFrac(p, w); f > 0 {
				out[ns] += v * f
			}
		}
	}
	return out
}

// SpotRate is the bill's effective spot rate for an instance type: the
// billed spot cost of the cluster's spot nodes of that type over their
// billed hours; ok is false when none ran on spot in the window.
func (m *Match) SpotRate(instanceType string) (usdPerHour, hours float64, ok bool) {
	var usd float64
	for _, nb := range m.nodes {
		if nb.Spot && nb.BilledHours > 0 && strings.EqualFold(nb.InstanceType, instanceType) {
			usd += nb.USD
			hours += nb.BilledHours
		}
	}
	if hours <= 0 {
		return 0, 0, false
	}
	return usd / hours, hours, true
}

// Commitments is what the bill says of the commitments that covered the
// cluster's GPU nodes in the window: the amortized cost of the covered
// charges that state a list cost, that list cost, and the commitments'
// ids (sorted); ok is false when no such charge is in the window.
func (m *Match) Commitments() (amortizedUSD, listUSD float64, ids []string, ok bool) {
	seen := map[string]bool{}
	for _, nb := range m.nodes {
		if !nb.GPU || nb.CommittedListUSD <= 0 {
			continue
		}
		amortizedUSD += nb.committedListed
		listUSD += nb.CommittedListUSD
		if nb.Commitment != "" && !seen[nb.Commitment] {
			seen[nb.Commitment] = true
			ids = append(ids, nb.Commitment)
		}
	}
	sort.Strings(ids)
	return amortizedUSD, listUSD, ids, listUSD > 0
}

// CommittedShare is the part of a node's billed cost in the window that
// commitments covered (0 for a node the bill does not cover).
func (m *Match) CommittedShare(node string) float64 {
	nb := m.nodes[node]
	if nb == nil || nb.USD <= 0 {
		return 0
	}
	return min(nb.CommittedUSD/nb.USD, 1)
}

// addSpan appends x, extending the last span when x continues it, so
// that a node's covered hours stay a short list.
func addSpan(s []span, x span) []span {
	if n := len(s); n > 0 && s[n-1].to == x.from {
		s[n-1].to = x.to
		return s
	}
	return append(s, x)
}
