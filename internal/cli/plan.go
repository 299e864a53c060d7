package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/gpushape"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// planOptions are the flags of `gpuwise plan` and `gpuwise generate mig|plan`.
type planOptions struct {
	recommendFlags
	output string
	shapes string
	dir    string
}

func (o *planOptions) register(cmd *cobra.Command, output bool) {
	o.recommendFlags.register(cmd.Flags())
	cmd.Flags().StringVar(&o.shapes, "shapes", string(packing.DefaultShapes), "GPU shapes to pack: recommended (right-sized by `gpuwise recommend`) or current (consolidation alone)")
	if output {
		cmd.Flags().StringVarP(&o.output, "output", "o", "table", "output format: table, json, yaml, markdown")
	}
}

// request is the plan request the flags describe.
func (o *planOptions) request(p *flagProblems) app.PlanRequest {
	return app.PlanRequest{RecommendRequest: o.recommendFlags.request(p), Shapes: packing.Shapes(o.shapes)}
}

func newPlanCmd(e *env) *cobra.Command {
	o := &planOptions{}
	cmd := &cobra.Command{
		Use:   "plan [--from FILE | --prometheus URL | --demo | --context CTX]",
		Short: "Consolidation plan: pack GPU workloads onto the fewest, cheapest nodes, with $ before and after",
		Long: "plan packs the GPU pods running at the end of the window (with their right-sized shapes, or\n" +
			"their current ones with --shapes current) onto the fewest and cheapest GPU nodes that respect\n" +
			"GPU models, taints, node selectors, CPU and memory and MIG placement rules. It prints the nodes\n" +
			"kept and removed per pool, each kept GPU's MIG layout or time-slicing, the moves, the pods that\n" +
			"fit nowhere and why, and $/month and GPU utilization before and after. It changes nothing;\n" +
			"`gpuwise generate plan` writes the configs. How it works: docs/planning.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlan(cmd.Context(), o, e) },
	}
	o.register(cmd, true)
	return cmd
}

func runPlan(ctx context.Context, o *planOptions, e *env) error {
	var p flagProblems
	req := o.request(&p)
	if !slices.Contains([]string{"table", "json", "yaml", "markdown"}, o.output) {
		p.addf("output format %q is not one of table, json, yaml, markdown", o.output)
	}
	if err := p.check(req.Validate); err != nil {
		return err
	}
	res, err := e.app.Plan(ctx, req)
	if err != nil {
		return err
	}
	if err := writePlan(e.Out, res.Plan, o.output); err != nil {
		return err
	}
	return partial(res.Partial)
}

func writePlan(w io.Writer, pl *packing.Plan, format string) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(pl, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "yaml":
		b, err := yaml.Marshal(pl)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	var b bytes.Buffer
	writePlanText(&b, pl, format == "markdown")
	_, err := w.Write(b.Bytes())
	return err
}

// table writes rows as an aligned table, or a markdown table.
func table(b *bytes.Buffer, md bool, header []string, rows [][]string) {
	if md {
		fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
		for _, r := range rows {
			fmt.Fprintf(b, "| %s |\n", strings.Join(r, " | "))
		}
		b.WriteString("\n")
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	b.WriteString("\n")
}

func heading(b *bytes.Buffer, md bool, title string) {
	if md {
		fmt.Fprintf(b, "## %s\n\n", title)
	} else {
		fmt.Fprintf(b, "%s\n", strings.ToUpper(title))
	}
}

func writePlanText(b *bytes.Buffer, pl *packing.Plan, md bool) {
	if md {
		b.WriteString("# gpuwise consolidation plan\n\n")
	}
	bf, af := pl.Before, pl.After
	heading(b, md, "Summary")
	table(b, md, []string{"", "nodes", "GPUs", "$/month", "GPU allocation", "GPU utilization"}, [][]string{
		{"before", fmt.Sprint(bf.Nodes), fmt.Sprint(bf.GPUs), totalUSD(bf), pct(bf.Allocation), pctOrNA(bf.Utilization)},
		{"after", fmt.Sprint(af.Nodes), fmt.Sprint(af.GPUs), totalUSD(af), pct(af.Allocation), pctOrNA(af.Utilization)},
	})
	fmt.Fprintf(b, "Saves %s/month: %d node(s) removed, %d move(s), %d GPU re-cut(s), %d workload(s) unplaced.\n",
		maybeUSD(pl.SavingsUSDPerMonth), bf.Nodes-af.Nodes, len(pl.Moves), len(pl.Recuts), len(pl.Unplaced))
	if n := len(pl.Shapes); n > 0 {
		fmt.Fprintf(b, "Right-sized GPU shapes: %d applied, %d applied without effect (time-slicing), %d reverted to the current shape (see right-sizing).\n",
			countShapes(pl, packing.ShapeApplied), countShapes(pl, packing.ShapeNoEffect), countShapes(pl, packing.ShapeReverted))
	}
	b.WriteString("\n")
	heading(b, md, "Pools")
	var rows [][]string
	for _, p := range pl.Pools {
		rows = append(rows, []string{p.Pool, fmt.Sprint(p.Nodes), fmt.Sprint(p.Kept), fmt.Sprint(p.Removed), fmt.Sprint(p.GPUsKept) + "/" + fmt.Sprint(p.GPUs),
			poolUSD(p.USDPerMonthBefore, p.Unpriced), poolUSD(p.USDPerMonthAfter, p.Unpriced)})
	}
	table(b, md, []string{"pool", "nodes", "kept", "removed", "GPUs kept", "$/month before", "after"}, rows)
	heading(b, md, "Kept nodes")
	rows = nil
	var removed []string
	for _, n := range pl.Nodes {
		if !n.Keep {
			removed = append(removed, n.Name)
			continue
		}
		rows = append(rows, []string{n.Name, n.Pool, gpuModes(n), fmt.Sprint(n.Workloads), n.Reason})
	}
	table(b, md, []string{"node", "pool", "GPUs", "pods", "why"}, rows)
	if len(removed) > 0 {
		heading(b, md, "Removed nodes")
		fmt.Fprintf(b, "%s\n\n", strings.Join(removed, ", "))
	}
	writeMovesAndUnplaced(b, pl, md)
}

// maybeUSD is a dollar amount, or "n/a (unpriced)": unknown is not $0.
func maybeUSD(v *float64) string {
	if v == nil {
		return "n/a (unpriced)"
	}
	return usdText(*v)
}

// totalUSD is a total over priced nodes, saying how many are left out.
func totalUSD(t packing.Totals) string {
	if t.USDPerMonth != nil && t.UnpricedNodes > 0 {
		return fmt.Sprintf("%s + %d unpriced", usdText(*t.USDPerMonth), t.UnpricedNodes)
	}
	return maybeUSD(t.USDPerMonth)
}

func poolUSD(v *float64, unpriced int) string {
	if v != nil && unpriced > 0 {
		return fmt.Sprintf("%s + %d unpriced", usdText(*v), unpriced)
	}
	return maybeUSD(v)
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

func writeMovesAndUnplaced(b *bytes.Buffer, pl *packing.Plan, md bool) {
	if len(pl.Shapes) > 0 {
		heading(b, md, "Right-sizing")
		var rows [][]string
		for _, d := range pl.Shapes {
			rows = append(rows, []string{d.Workload, d.Decision, d.Current + " → " + d.Planned, d.Recommended, d.Reason})
		}
		table(b, md, []string{"pod", "decision", "shape now → planned", "recommended", "why"}, rows)
	}
	if ts := timeSliced(pl); len(ts) > 0 {
		heading(b, md, "Time-sliced nodes")
		table(b, md, []string{"node", "replicas", "pods", "pods given more than recommended"}, ts)
	}
	if len(pl.Recuts) > 0 {
		heading(b, md, "GPU re-cuts")
		var rows [][]string
		for _, r := range pl.Recuts {
			rows = append(rows, []string{r.Node, fmt.Sprint(r.GPU), layoutText(r.From), layoutText(r.To)})
		}
		table(b, md, []string{"node", "GPU", "layout now", "planned"}, rows)
	}
	if len(pl.Moves) > 0 {
		heading(b, md, "Moves")
		var rows [][]string
		for _, m := range pl.Moves {
			rows = append(rows, []string{m.Workload, m.Kind, m.From + " → " + m.To, m.FromShape + " → " + m.ToShape})
		}
		table(b, md, []string{"pod", "change", "node", "shape"}, rows)
	}
	if len(pl.Unplaced) > 0 {
		heading(b, md, "Unplaced")
		var rows [][]string
		for _, u := range pl.Unplaced {
			rows = append(rows, []string{u.Workload, u.Demand.String(), u.Reason})
		}
		table(b, md, []string{"pod", "shape", "why it fits nowhere"}, rows)
	}
	if len(pl.Notes) > 0 {
		heading(b, md, "Notes")
		for _, n := range pl.Notes {
			fmt.Fprintf(b, "- %s\n", n)
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
