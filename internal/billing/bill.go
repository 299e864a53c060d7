package billing

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Bill is what a set of billing exports holds, folded for matching: the
// compute charges per resource and charge period, the unused commitments,
// the split cost allocation per namespace, and the totals inspect prints.
type Bill struct {
	Files []FileInfo
	// Totals are the sums per provider and service, over every row.
	Totals map[TotalKey]*Total
	// BillingPeriods are the billing periods' starts seen, sorted.
	BillingPeriods []time.Time
	periods        map[time.Time]bool

	resources map[string]*Resource
	// unused is the unused commitment charges by commitment id.
	unused map[string]map[period]float64
	// split is CUR 2.0 split cost allocation per namespace and period.
	split map[string]map[period]float64
	// first and last bound every charge period seen.
	first, last time.Time
}

// FileInfo is one export read.
type FileInfo struct {
	Name   string `json:"name"`
	Format Format `json:"format"`
	Rows   int64  `json:"rows"`
}

// TotalKey groups inspect's sums.
type TotalKey struct {
	Provider, Service string
}

// Total is the sums of a provider's service.
type Total struct {
	Rows                                int64
	BilledCost, EffectiveCost, ListCost float64
}

// Resource is one billed resource's compute charges.
type Resource struct {
	Provider     string
	ID           string // as the bill spells it
	Type         string
	InstanceType string
	Region       string
	Spot         bool
	// Commitment names the commitment that covered any of its charges.
	Commitment string
	// runs are its charges: each a run of equal, back-to-back charge
	// periods with equal costs (an instance's steady hourly rate is one
	// run for the month), so that memory grows with rate changes, not
	// with rows. Runs may overlap (two rows for one hour: a commitment's
	// part and the on-demand rest); each period of each run is a charge.
	runs []run
}

type period struct{ start, end int64 } // unix seconds, [start, end)

// run is n back-to-back charge periods of step seconds from start, each
// with the effective cost eff, of which committed was covered by a
// commitment; committedList is the covered part's list (on-demand) cost,
// which the commitment's discount is measured against (0: not stated).
type run struct {
	start                         int64
	step, n                       int32
	eff, committed, committedList float64
}

func (r *run) end() int64 { return r.start + int64(r.step)*int64(r.n) }

// addCharge adds one row's charge, extending one of the last two runs
// when it continues it.
func (res *Resource) addCharge(p period, eff, committed, committedList float64) {
	step := p.end - p.start
	for k := len(res.runs) - 1; k >= max(len(res.runs)-2, 0); k-- {
		r := &res.runs[k]
		if int64(r.step) == step && r.end() == p.start && r.eff == eff && r.committed == committed && r.committedList == committedList && r.n < math.MaxInt32 {
			r.n++
			return
		}
	}
	if step > math.MaxInt32 {
		// A charge period over 68 years: kept as runs of whole steps is
		// impossible; split it into equal parts (never happens in exports).
		half := period{p.start, p.start + step/2}
		res.addCharge(half, eff/2, committed/2, committedList/2)
		res.addCharge(period{half.end, p.end}, eff-eff/2, committed-committed/2, committedList-committedList/2)
		return
	}
	res.runs = append(res.runs, run{start: p.start, step: int32(step), n: 1, eff: eff, committed: committed, committedList: committedList})
}

// NewBill returns an empty bill to Read exports into.
func NewBill() *Bill {
	return &Bill{Totals: map[TotalKey]*Total{}, periods: map[time.Time]bool{}, resources: map[string]*Resource{},
		unused: map[string]map[period]float64{}, split: map[string]map[period]float64{}}
}

// AddFile records one export read (internal/billing/export reads them).
func (b *Bill) AddFile(f FileInfo) { b.Files = append(b.Files, f) }

// Add folds one row in; the readers call it for every row, so that the
// bill holds sums, never rows.
func (b *Bill) Add(r *Row) error {
	t := b.Totals[TotalKey{r.Provider, r.ServiceName}]
	if t == nil {
		t = &Total{}
		b.Totals[TotalKey{r.Provider, r.ServiceName}] = t
	}
	t.Rows++
	t.BilledCost += r.BilledCost
	t.EffectiveCost += r.EffectiveCost
	t.ListCost += r.ListCost
	if !r.BillingPeriod.IsZero() && !b.periods[r.BillingPeriod] {
		b.periods[r.BillingPeriod] = true
		b.BillingPeriods = append(b.BillingPeriods, r.BillingPeriod)
		sort.Slice(b.BillingPeriods, func(i, j int) bool { return b.BillingPeriods[i].Before(b.BillingPeriods[j]) })
	}
	if r.Start.IsZero() || r.End.IsZero() {
		return nil
	}
	if b.first.IsZero() || r.Start.Before(b.first) {
		b.first = r.Start
	}
	if r.End.After(b.last) {
		b.last = r.End
	}
	p := period{r.Start.Unix(), r.End.Unix()}
	switch {
	case r.Split:
		if r.SplitNamespace != "" {
			addTo(b.split, r.SplitNamespace, p, r.SplitCost)
		}
	case r.CommitmentStatus == CommitmentUnused:
		id := r.CommitmentID
		if id == "" {
			id = r.ResourceID
		}
		addTo(b.unused, id, p, r.EffectiveCost)
	case r.Compute:
		key := resourceKey(r.Provider, r.ResourceID)
		if key == "" {
			return nil
		}
		res := b.resources[key]
		if res == nil {
			res = &Resource{Provider: r.Provider, ID: r.ResourceID, Type: r.ResourceType, Region: r.Region}
			b.resources[key] = res
		}
		if res.InstanceType == "" {
			res.InstanceType = r.InstanceType
		}
		res.Spot = res.Spot || r.Spot
		var committed, committedList float64
		if r.CommitmentStatus == CommitmentUsed {
			committed, committedList = r.EffectiveCost, r.ListCost
			if res.Commitment == "" {
				res.Commitment = r.CommitmentID
			}
		}
		res.addCharge(p, r.EffectiveCost, committed, committedList)
	}
	return nil
}

func addTo(m map[string]map[period]float64, k string, p period, v float64) {
	mm := m[k]
	if mm == nil {
		mm = map[period]float64{}
		m[k] = mm
	}
	mm[p] += v
}

// Resources lists the billed compute resources, sorted by id.
func (b *Bill) Resources() []*Resource {
	out := make([]*Resource, 0, len(b.resources))
	for _, r := range b.resources {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Span is the first charge period's start and the last one's end.
func (b *Bill) Span() (time.Time, time.Time) { return b.first, b.last }

// Empty says whether no file was read.
func (b *Bill) Empty() bool { return b == nil || len(b.Files) == 0 }

// Describe names the bill's files for price sources: "bill a.csv, b.parquet".
func (b *Bill) Describe() string {
	names := make([]string, len(b.Files))
	for i, f := range b.Files {
		names[i] = f.Name
	}
	return "bill " + strings.Join(names, ", ")
}

// String is a one-line summary, for errors and logs.
func (b *Bill) String() string {
	var rows int64
	for _, f := range b.Files {
		rows += f.Rows
	}
	return fmt.Sprintf("%s: %d rows, %d compute resources", b.Describe(), rows, len(b.resources))
}
