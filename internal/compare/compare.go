package compare

import (
	"sort"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Figures are one key's numbers on one side.
type Figures struct {
	Pods               int     `json:"pods"`
	GPUAllocatedHours  float64 `json:"gpu_allocated_hours"`
	GPUActiveHours     float64 `json:"gpu_active_hours"`
	GPUIdleHours       float64 `json:"gpu_idle_hours"`
	GPUUnmeasuredHours float64 `json:"gpu_unmeasured_hours"`
	// Utilization is active over measured allocated GPU-hours; nil when
	// nothing was measured.
	Utilization *float64 `json:"gpu_utilization"`
	// IdleUSD is allocated-but-idle GPU dollars (plus unallocated on the
	// unallocated row); TotalUSD the key's cost. Nil when unpriced.
	IdleUSD  *float64 `json:"gpu_idle_usd"`
	TotalUSD *float64 `json:"total_usd"`
	// OOMKills is nil when the side does not count them (a report file).
	OOMKills *int `json:"oom_kills"`
}

// Side is one side of a comparison.
type Side struct {
	// Label names the side ("2026-11-01..2026-11-08", a file name).
	Label  string             `json:"label"`
	Window cluster.Window     `json:"window"`
	Keys   map[string]Figures `json:"-"`
}

// Change is one key on both sides and what changed. Before or After is
// nil when the key is on one side only.
type Change struct {
	Key    string   `json:"key"`
	Before *Figures `json:"before"`
	After  *Figures `json:"after"`
	// UtilizationPoints is after − before in percentage points; nil when
	// either side is unmeasured.
	UtilizationPoints *float64 `json:"gpu_utilization_change_points"`
	GPUHours          float64  `json:"gpu_allocated_hours_change"`
	IdleUSD           *float64 `json:"gpu_idle_usd_change"`
	TotalUSD          *float64 `json:"total_usd_change"`
	OOMKills          *int     `json:"oom_kills_change"`
}

// Diff is a whole comparison: its sides, the grouping, every key's change
// (largest idle-dollar change first) and the totals' change.
type Diff struct {
	By      string   `json:"by"`
	Before  Side     `json:"before"`
	After   Side     `json:"after"`
	Total   Change   `json:"total"`
	Changes []Change `json:"changes"`
	Notes   []string `json:"notes,omitempty"`
}

// Compare compares two sides grouped by the same key.
func Compare(by string, before, after Side) *Diff {
	d := &Diff{By: by, Before: before, After: after}
	keys := map[string]bool{}
	for k := range before.Keys {
		keys[k] = true
	}
	for k := range after.Keys {
		keys[k] = true
	}
	for k := range keys {
		d.Changes = append(d.Changes, change(k, before.Keys, after.Keys))
	}
	sort.Slice(d.Changes, func(i, j int) bool { return less(d.Changes[i], d.Changes[j]) })
	bt, at := total(before.Keys), total(after.Keys)
	d.Total = diff("total", &bt, &at)
	if w, v := before.Window, after.Window; w.Seconds() > 0 && v.Seconds() > 0 && w.Seconds() != v.Seconds() {
		d.Notes = append(d.Notes, "the sides cover windows of different lengths: compare utilization, not hours or dollars")
	}
	return d
}

func change(k string, before, after map[string]Figures) Change {
	var b, a *Figures
	if f, ok := before[k]; ok {
		b = &f
	}
	if f, ok := after[k]; ok {
		a = &f
	}
	return diff(k, b, a)
}

// less orders changes by the size of their idle-dollar change, then key.
func less(a, b Change) bool {
	x, y := absOrZero(a.IdleUSD), absOrZero(b.IdleUSD)
	if x != y {
		return x > y
	}
	return a.Key < b.Key
}

func absOrZero(v *float64) float64 {
	if v == nil {
		return 0
	}
	if *v < 0 {
		return -*v
	}
	return *v
}

func diff(key string, b, a *Figures) Change {
	c := Change{Key: key, Before: b, After: a}
	zero := Figures{}
	if b == nil {
		b = &zero
		if a != nil && a.TotalUSD != nil {
			b = &Figures{IdleUSD: ptr(0.0), TotalUSD: ptr(0.0), OOMKills: zeroIfKnown(a.OOMKills)}
		}
	}
	if a == nil {
		a = &Figures{}
		if b.TotalUSD != nil {
			a = &Figures{IdleUSD: ptr(0.0), TotalUSD: ptr(0.0), OOMKills: zeroIfKnown(b.OOMKills)}
		}
	}
	c.GPUHours = a.GPUAllocatedHours - b.GPUAllocatedHours
	if c.Before != nil && c.After != nil && a.Utilization != nil && b.Utilization != nil {
		c.UtilizationPoints = ptr(100 * (*a.Utilization - *b.Utilization))
	}
	c.IdleUSD = sub(a.IdleUSD, b.IdleUSD)
	c.TotalUSD = sub(a.TotalUSD, b.TotalUSD)
	if a.OOMKills != nil && b.OOMKills != nil {
		c.OOMKills = ptr(*a.OOMKills - *b.OOMKills)
	}
	return c
}

func zeroIfKnown(v *int) *int {
	if v == nil {
		return nil
	}
	return ptr(0)
}

func sub(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	return ptr(*a - *b)
}

func ptr[T any](v T) *T { return &v }

// total sums a side's keys.
func total(keys map[string]Figures) Figures {
	var t Figures
	idle, tot, oom := 0.0, 0.0, 0
	priced, counted := false, false
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names) // a fixed order: the same sides give the same sums
	for _, k := range names {
		f := keys[k]
		t.Pods += f.Pods
		t.GPUAllocatedHours += f.GPUAllocatedHours
		t.GPUActiveHours += f.GPUActiveHours
		t.GPUIdleHours += f.GPUIdleHours
		t.GPUUnmeasuredHours += f.GPUUnmeasuredHours
		if f.TotalUSD != nil {
			priced, tot, idle = true, tot+*f.TotalUSD, idle+*f.IdleUSD
		}
		if f.OOMKills != nil {
			counted, oom = true, oom+*f.OOMKills
		}
	}
	t.Utilization = Utilization(t.GPUActiveHours, t.GPUAllocatedHours, t.GPUUnmeasuredHours)
	if priced {
		t.IdleUSD, t.TotalUSD = &idle, &tot
	}
	if counted {
		t.OOMKills = &oom
	}
	return t
}

// Utilization is active over measured allocated GPU-hours, nil when none
// was measured.
func Utilization(active, allocated, unmeasured float64) *float64 {
	if m := allocated - unmeasured; m > 1e-12 {
		return ptr(active / m)
	}
	return nil
}
