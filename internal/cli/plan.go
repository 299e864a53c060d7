package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/gpushape"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// planOptions are the flags of `gpuwise plan` and `gpuwise generate plan`.
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

func newPlanCmd(s Streams) *cobra.Command {
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlan(cmd.Context(), o, s) },
	}
	o.register(cmd, true)
	return cmd
}

func newGeneratePlanCmd(s Streams) *cobra.Command {
	o := &planOptions{}
	cmd := &cobra.Command{
		Use:   "plan [--from FILE | --prometheus URL | --demo | --context CTX] [-d DIR]",
		Short: "mig-parted and device-plugin configs, node commands and workload patches for `gpuwise plan`",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runGeneratePlan(cmd.Context(), o, s) },
	}
	o.register(cmd, false)
	cmd.Flags().StringVarP(&o.dir, "dir", "d", "", "write one file per artefact under this directory (default: a YAML stream on stdout)")
	return cmd
}

func runPlan(ctx context.Context, o *planOptions, s Streams) error {
	if !slices.Contains([]string{"table", "json", "yaml", "markdown"}, o.output) {
		return usageErrorf("output format %q is not one of table, json, yaml, markdown", o.output)
	}
	pl, _, partial, err := o.plan(ctx)
	if err != nil {
		return err
	}
	if err := writePlan(s.Out, pl, o.output, packing.Shapes(o.shapes)); err != nil {
		return err
	}
	return partial
}

// plan loads the snapshot, right-sizes it when asked, and packs it.
func (o *planOptions) plan(ctx context.Context) (*packing.Plan, *cluster.Prepared, error, error) {
	shapes := packing.Shapes(o.shapes)
	if err := shapes.Validate(); err != nil {
		return nil, nil, nil, usageErrorf("%v", err)
	}
	var recs *rightsize.Result
	var snap *cluster.Prepared
	var partial, err error
	if shapes == packing.RecommendedShapes {
		recs, snap, partial, err = o.recommend(ctx)
	} else {
		var raw *cluster.Snapshot
		raw, partial, err = o.load(ctx, o.window)
		if err == nil {
			snap, err = prepare(raw)
		}
	}
	if err != nil {
		return nil, nil, nil, err
	}
	catalog, err := loadPrices(o.prices)
	if err != nil {
		return nil, nil, nil, err
	}
	prob, err := packing.FromSnapshot(snap, packing.SnapshotOptions{Prices: catalog, Shapes: shapes, Recs: recs})
	if err != nil {
		return nil, nil, nil, err
	}
	pl, err := packing.Solve(prob)
	if err != nil {
		return nil, nil, nil, inputError(err)
	}
	return pl, snap, partial, nil
}

func writePlan(w io.Writer, pl *packing.Plan, format string, shapes packing.Shapes) error {
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
	writePlanText(&b, pl, format == "markdown", shapes)
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

func writePlanText(b *bytes.Buffer, pl *packing.Plan, md bool, shapes packing.Shapes) {
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
	b.WriteString(ledgerRelation(shapes) + "\n\n")
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

// ledgerRelation says which part of the savings ledger a plan's saving is.
func ledgerRelation(shapes packing.Shapes) string {
	if shapes == packing.CurrentShapes {
		return "Savings ledger: this is consolidation alone, the ledger's remove-nodes actions (`gpuwise advise`)."
	}
	return "Savings ledger: this is the consolidation lever with every right-sized change packed; `gpuwise advise` splits it into\n" +
		"consolidation alone and what right-sizing adds, and counts the cheaper of packing with or without each lever's changes."
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

func runGeneratePlan(ctx context.Context, o *planOptions, s Streams) error {
	pl, snap, partial, err := o.plan(ctx)
	if err != nil {
		return err
	}
	files, notes, err := planArtefacts(pl, snap.Snapshot)
	if err != nil {
		return fmt.Errorf("generating: %w", err)
	}
	if err := emitArtefacts(s, o.dir, files, notes); err != nil {
		return err
	}
	return partial
}

// planArtefacts turns a plan into generate's inputs: per-node MIG layouts,
// device-plugin configs (time-slicing, mixed MIG strategy), GPU resource
// patches per workload, and the cordon/drain commands of removed nodes.
func planArtefacts(pl *packing.Plan, snap *cluster.Snapshot) ([]generate.File, []string, error) {
	var files []generate.File
	var notes []string
	nodes := map[string]*cluster.Node{}
	for i := range snap.Nodes {
		nodes[snap.Nodes[i].Name] = &snap.Nodes[i]
	}
	mig, ts := planNodeConfigs(pl, nodes)
	if len(mig.Nodes) > 0 {
		f, err := generate.MIGPartedConfig(mig)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f...)
	}
	if len(ts.Nodes) > 0 {
		f, err := generate.TimeSlicingConfig(ts)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f...)
	}
	patches, pnotes := planPatches(pl, snap)
	notes = append(notes, pnotes...)
	if len(patches) > 0 {
		f, err := generate.Patches(patches)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f...)
	}
	if f, ok := removalCommands(pl); ok {
		files = append(files, f)
	}
	notes = append(notes, "CPU and memory request changes are not in these patches; `gpuwise generate resources` writes them")
	return files, notes, nil
}

// planNodeConfigs gives every kept node with MIG GPUs its mig-parted
// config (one name per distinct layout set) and the mixed strategy, every
// time-sliced node its replica config, and nodes that lose MIG or
// time-slicing the all-disabled / exclusive config.
func planNodeConfigs(pl *packing.Plan, nodes map[string]*cluster.Node) (generate.MIGParted, generate.TimeSlicing) {
	var mig generate.MIGParted
	var ts generate.TimeSlicing
	configs := map[string]bool{}
	for _, n := range pl.Nodes {
		if !n.Keep {
			continue
		}
		cur := nodes[n.Name]
		groups := migGroups(n)
		hasMIG := len(groups) > 0
		switch {
		case hasMIG:
			mig.Nodes = append(mig.Nodes, generate.MIGNode{Node: n.Name, Config: migConfigName(n.Model, groups), Groups: groups})
		case cur != nil && cur.MIGStrategy != "":
			mig.Nodes = append(mig.Nodes, generate.MIGNode{Node: n.Name, Config: generate.AllDisabledConfig})
		}
		name, cfg := deviceConfig(n.TimeSlicingReplicas, hasMIG)
		if cfg == nil {
			if cur != nil && (cur.MIGStrategy != "" || cur.Labels[generate.DevicePluginConfigLabel] != "") {
				ts.Nodes = append(ts.Nodes, generate.NodeConfig{Node: n.Name, Config: generate.ExclusiveConfig})
			}
			continue
		}
		if !configs[name] {
			configs[name] = true
			ts.Configs = append(ts.Configs, *cfg)
		}
		ts.Nodes = append(ts.Nodes, generate.NodeConfig{Node: n.Name, Config: name})
	}
	sort.Slice(ts.Configs, func(i, j int) bool { return ts.Configs[i].Name < ts.Configs[j].Name })
	return mig, ts
}

func deviceConfig(reps int, mixed bool) (string, *generate.SharingConfig) {
	strategy := "none"
	if mixed {
		strategy = "mixed"
	}
	switch {
	case reps > 0:
		name := fmt.Sprintf("ts-%d", reps)
		if mixed {
			name += "-mixed"
		}
		return name, &generate.SharingConfig{Name: name, MIGStrategy: strategy, RenameByDefault: true, FailRequestsGreaterThanOne: true,
			Resources: []generate.SharedResource{{Name: "nvidia.com/gpu", Replicas: reps}}}
	case mixed:
		return "mig-mixed", &generate.SharingConfig{Name: "mig-mixed", MIGStrategy: strategy}
	}
	return "", nil
}

// migGroups groups a node's GPUs by MIG layout; GPUs without MIG form a
// MIG-disabled group.
func migGroups(n packing.NodePlan) []generate.MIGDeviceGroup {
	by := map[string]*generate.MIGDeviceGroup{}
	var order []string
	any := false
	for _, g := range n.GPUs {
		key := ""
		if g.Mode == packing.ModeMIG {
			key, any = g.Layout.String(), true
		}
		grp := by[key]
		if grp == nil {
			grp = &generate.MIGDeviceGroup{Model: n.Model}
			if g.Mode == packing.ModeMIG {
				grp.Layout = map[string]int(g.Layout)
			}
			by[key] = grp
			order = append(order, key)
		}
		grp.Devices = append(grp.Devices, g.Index)
	}
	if !any {
		return nil
	}
	out := make([]generate.MIGDeviceGroup, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out
}

// migConfigName names a layout set: model and a hash of the groups, so
// nodes with identical layouts share one config.
func migConfigName(model string, groups []generate.MIGDeviceGroup) string {
	h := fnv.New32a()
	for _, g := range groups {
		fmt.Fprintf(h, "%v=%s;", g.Devices, packingLayout(g.Layout))
	}
	return fmt.Sprintf("gpuwise-%s-%08x", strings.ToLower(model), h.Sum32())
}

func packingLayout(l map[string]int) string {
	keys := make([]string, 0, len(l))
	for k, v := range l {
		keys = append(keys, fmt.Sprintf("%s:%d", k, v))
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// planPatches swaps the GPU resource of every workload whose shape the plan
// changes, once per workload.
func planPatches(pl *packing.Plan, snap *cluster.Snapshot) ([]generate.ResourcePatch, []string) {
	pods := map[string]*cluster.Pod{}
	for i := range snap.Pods {
		pods[snap.Pods[i].Key()] = &snap.Pods[i]
	}
	var out []generate.ResourcePatch
	var notes []string
	done := map[string]bool{}
	for _, m := range pl.Moves {
		if m.Kind == "move" || m.Kind == "restart" || done[m.Group] {
			continue
		}
		done[m.Group] = true
		pod := pods[m.Workload]
		pc := placementFor(pl, m.Workload)
		if pod == nil || pc == nil {
			continue
		}
		w, ok := patchable(pod.Namespace, pod.Owner.Kind, pod.Owner.Name)
		if !ok {
			notes = append(notes, fmt.Sprintf("%s: a %s cannot be patched in place; change the object that creates it", m.Group, pod.Owner.Kind))
			continue
		}
		ctr, old := gpuContainer(pod)
		res, count := resourceOf(pc.Demand)
		if ctr == "" || res == "" || res == old {
			continue
		}
		change := &generate.GPUChange{Resource: res, Count: count}
		if old != "" {
			change.Remove = []string{old}
		}
		out = append(out, generate.ResourcePatch{Workload: w,
			Evidence:   fmt.Sprintf("gpuwise plan: %s → %s (%s)", m.FromShape, m.ToShape, pc.Note),
			Containers: []generate.ContainerResources{{Name: ctr, GPU: change}}})
	}
	return out, notes
}

func placementFor(pl *packing.Plan, id string) *packing.Placement {
	for i := range pl.Placements {
		if pl.Placements[i].Workload == id {
			return &pl.Placements[i]
		}
	}
	return nil
}

// gpuContainer is the first container asking for a GPU resource, and the
// resource.
func gpuContainer(p *cluster.Pod) (string, string) {
	for _, c := range p.Containers {
		for r, n := range c.GPURequests {
			if n > 0 {
				return c.Name, r
			}
		}
	}
	return "", ""
}

func resourceOf(d packing.Demand) (string, int64) {
	switch d.Kind {
	case packing.Whole:
		return "nvidia.com/gpu", int64(d.GPUs)
	case packing.MIG:
		return "nvidia.com/mig-" + strings.ReplaceAll(d.Profile, "+", "."), 1
	case packing.TimeSlice:
		return "nvidia.com/gpu.shared", 1
	}
	return "", 0
}

// removalCommands is the cordon-and-drain script for the removed nodes.
func removalCommands(pl *packing.Plan) (generate.File, bool) {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# gpuwise plan: nodes the plan removes. Apply the MIG, device-plugin and workload\n" +
		"# changes first, then cordon and drain each node and let the autoscaler (or you) delete it.\nset -eu\n")
	n := 0
	for _, np := range pl.Nodes {
		if np.Keep {
			continue
		}
		n++
		fmt.Fprintf(&b, "kubectl cordon %s\nkubectl drain %s --ignore-daemonsets --delete-emptydir-data --timeout=15m\n", np.Name, np.Name)
	}
	return generate.File{Path: "plan/remove-nodes.sh", Data: []byte(b.String())}, n > 0
}
