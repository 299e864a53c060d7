package render

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/gpushape"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// Plan writes a consolidation plan of the given shapes in format f.
func Plan(w io.Writer, pl *packing.Plan, shapes packing.Shapes, f Format, o Options) error {
	if pl == nil {
		return fmt.Errorf("rendering plan: no plan")
	}
	d := planDoc(pl, shapes)
	return write(w, "plan", f, o, docWriters(d, writers{
		JSON: func(w io.Writer) error { return encodeJSON(w, pl) },
		YAML: func(w io.Writer) error { return encodeYAML(w, pl) },
		CSV:  func(w io.Writer) error { return writePlanCSV(w, pl) },
	}))
}

// planDoc is the plan as people read it: summary, pools, kept and removed
// nodes, right-sizing decisions, time-sliced nodes, re-cuts, moves,
// unplaced pods and notes.
func planDoc(pl *packing.Plan, shapes packing.Shapes) *doc {
	d := &doc{title: "gpuwise consolidation plan"}
	bf, af := pl.Before, pl.After
	d.heading("Summary")
	d.table([]string{"", "nodes", "GPUs", "$/month", "GPU allocation", "GPU utilization"}, [][]string{
		{"before", fmt.Sprint(bf.Nodes), fmt.Sprint(bf.GPUs), withUnpriced(bf.USDPerMonth, bf.UnpricedNodes, "n/a (unpriced)", usdCents), pct(bf.Allocation), pctOrNA(bf.Utilization)},
		{"after", fmt.Sprint(af.Nodes), fmt.Sprint(af.GPUs), withUnpriced(af.USDPerMonth, af.UnpricedNodes, "n/a (unpriced)", usdCents), pct(af.Allocation), pctOrNA(af.Utilization)},
	})
	d.linef("Saves %s/month: %d node(s) removed, %d move(s), %d GPU re-cut(s), %d workload(s) unplaced.",
		moneyOr(pl.SavingsUSDPerMonth, "n/a (unpriced)", usdCents), bf.Nodes-af.Nodes, len(pl.Moves), len(pl.Recuts), len(pl.Unplaced))
	if n := len(pl.Shapes); n > 0 {
		d.linef("Right-sized GPU shapes: %d applied, %d applied without effect (time-slicing), %d reverted to the current shape (see right-sizing).",
			countShapes(pl, packing.ShapeApplied), countShapes(pl, packing.ShapeNoEffect), countShapes(pl, packing.ShapeReverted))
	}
	d.line(ledgerRelation(shapes))
	d.line("")
	d.heading("Pools")
	var rows [][]string
	for _, p := range pl.Pools {
		rows = append(rows, []string{p.Pool, fmt.Sprint(p.Nodes), fmt.Sprint(p.Kept), fmt.Sprint(p.Removed), fmt.Sprint(p.GPUsKept) + "/" + fmt.Sprint(p.GPUs),
			withUnpriced(p.USDPerMonthBefore, p.Unpriced, "n/a (unpriced)", usdCents), withUnpriced(p.USDPerMonthAfter, p.Unpriced, "n/a (unpriced)", usdCents)})
	}
	d.table([]string{"pool", "nodes", "kept", "removed", "GPUs kept", "$/month before", "after"}, rows)
	d.heading("Kept nodes")
	rows = nil
	var removed []string
	for _, n := range pl.Nodes {
		if !n.Keep {
			removed = append(removed, n.Name)
			continue
		}
		rows = append(rows, []string{n.Name, n.Pool, gpuModes(n), fmt.Sprint(n.Workloads), n.Reason})
	}
	d.table([]string{"node", "pool", "GPUs", "pods", "why"}, rows)
	if len(removed) > 0 {
		d.heading("Removed nodes")
		d.line(strings.Join(removed, ", "))
		d.line("")
	}
	planDetails(d, pl)
	return d
}

// ledgerRelation says which part of the savings ledger a plan's saving is.
func ledgerRelation(shapes packing.Shapes) string {
	if shapes == packing.CurrentShapes {
		return "Savings ledger: this is consolidation alone, the ledger's remove-nodes actions (`gpuwise advise --levers consolidate`); " +
			"with the autoscale lever the ledger keeps the nodes the window's peak needed and scales them in the troughs instead."
	}
	return "Savings ledger: this is the consolidation lever with every right-sized change packed (`gpuwise advise --levers rightsize,shape,consolidate`); " +
		"`gpuwise advise` splits it into consolidation alone and what right-sizing adds, counts the cheaper of packing with or without each lever's changes, " +
		"and with the autoscale lever keeps the nodes the window's peak needed and scales them in the troughs instead."
}

func countShapes(pl *packing.Plan, decision string) int {
	n := 0
	for _, d := range pl.Shapes {
		if d.Decision == decision {
			n++
		}
	}
	return n
}

// planDetails adds the right-sizing decisions, time-sliced nodes, re-cuts,
// moves, unplaced pods and notes.
func planDetails(d *doc, pl *packing.Plan) {
	if len(pl.Shapes) > 0 {
		d.heading("Right-sizing")
		var rows [][]string
		for _, d := range pl.Shapes {
			rows = append(rows, []string{d.Workload, d.Decision, d.Current + " → " + d.Planned, d.Recommended, d.Reason})
		}
		d.table([]string{"pod", "decision", "shape now → planned", "recommended", "why"}, rows)
	}
	if ts := timeSliced(pl); len(ts) > 0 {
		d.heading("Time-sliced nodes")
		d.table([]string{"node", "replicas", "pods", "pods given more than recommended"}, ts)
	}
	if len(pl.Recuts) > 0 {
		d.heading("GPU re-cuts")
		var rows [][]string
		for _, r := range pl.Recuts {
			rows = append(rows, []string{r.Node, fmt.Sprint(r.GPU), layoutText(r.From), layoutText(r.To)})
		}
		d.table([]string{"node", "GPU", "layout now", "planned"}, rows)
	}
	if len(pl.Moves) > 0 {
		d.heading("Moves")
		var rows [][]string
		for _, m := range pl.Moves {
			rows = append(rows, []string{m.Workload, m.Kind, m.From + " → " + m.To, m.FromShape + " → " + m.ToShape})
		}
		d.table([]string{"pod", "change", "node", "shape"}, rows)
	}
	if len(pl.Unplaced) > 0 {
		d.heading("Unplaced")
		var rows [][]string
		for _, u := range pl.Unplaced {
			rows = append(rows, []string{u.Workload, u.Demand.String(), u.Reason})
		}
		d.table([]string{"pod", "shape", "why it fits nowhere"}, rows)
	}
	if len(pl.Notes) > 0 {
		d.heading("Notes")
		for _, n := range pl.Notes {
			d.item(n)
		}
	}
}

// timeSliced lists each kept time-sliced node: its replica count (the
// smallest its pods ask for) and the pods that get a bigger share than
// recommended because of it.
func timeSliced(pl *packing.Plan) [][]string {
	more := map[string][]string{}
	for _, pc := range pl.Placements {
		if pc.GrantedReplicas > 0 {
			more[pc.Node] = append(more[pc.Node], fmt.Sprintf("%s (1/%d, asked 1/%d)", pc.Workload, pc.GrantedReplicas, pc.Demand.Replicas))
		}
	}
	var rows [][]string
	for _, n := range pl.Nodes {
		if !n.Keep || n.TimeSlicingReplicas == 0 {
			continue
		}
		pods := 0
		for _, g := range n.GPUs {
			if g.Mode == packing.ModeTimeSlice {
				pods += len(g.Workloads)
			}
		}
		rows = append(rows, []string{n.Name, fmt.Sprint(n.TimeSlicingReplicas), fmt.Sprint(pods), cmp.Or(strings.Join(more[n.Name], ", "), "none")})
	}
	return rows
}

func layoutText(l gpushape.Layout) string {
	if len(l) == 0 {
		return "MIG off"
	}
	return l.String()
}

// gpuModes is a node's GPUs in one cell: "0-3 whole, 4 mig 3x2g.20gb".
func gpuModes(n packing.NodePlan) string {
	var parts []string
	for i := 0; i < len(n.GPUs); {
		j, d := i, gpuDesc(n.GPUs[i], n.TimeSlicingReplicas)
		for j+1 < len(n.GPUs) && gpuDesc(n.GPUs[j+1], n.TimeSlicingReplicas) == d {
			j++
		}
		idx := fmt.Sprint(i)
		if j > i {
			idx = fmt.Sprintf("%d-%d", i, j)
		}
		parts = append(parts, idx+" "+d)
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func gpuDesc(g packing.GPUPlan, reps int) string {
	switch g.Mode {
	case packing.ModeMIG:
		return "mig " + g.Layout.String()
	case packing.ModeTimeSlice:
		return fmt.Sprintf("time-slice %d/%d", len(g.Workloads), g.Replicas)
	case packing.ModeShared:
		return fmt.Sprintf("shared %dm", g.UsedMilli)
	case packing.ModeFree:
		if reps > 0 {
			return fmt.Sprintf("free (time-slice ×%d)", reps)
		}
	}
	return g.Mode
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// pctOrNA shows a share that may be unknown: n/a, never 0%.
func pctOrNA(v *float64) string {
	if v == nil {
		return "n/a (no usage data)"
	}
	return pct(*v)
}

// planCSVHeader names the plan CSV's columns: one row per node, kept or
// removed; their order is stable.
var planCSVHeader = []string{"node", "pool", "model", "keep", "gpus", "workloads", "time_slicing_replicas", "usd_per_hour", "priced", "reason"}

// writePlanCSV writes one row per node; an unpriced node's $/h is empty.
func writePlanCSV(w io.Writer, pl *packing.Plan) error {
	cw := csv.NewWriter(w)
	cw.Write(planCSVHeader)
	for _, n := range pl.Nodes {
		usd := ""
		if n.USDPerHour != nil {
			usd = exact(*n.USDPerHour)
		}
		cw.Write([]string{n.Name, n.Pool, n.Model, strconv.FormatBool(n.Keep), gpuModes(n), strconv.Itoa(n.Workloads),
			strconv.Itoa(n.TimeSlicingReplicas), usd, strconv.FormatBool(n.Priced), n.Reason})
	}
	cw.Flush()
	return cw.Error()
}
