package render

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gpuwise/gpuwise/internal/billing"
)

// writeReconciliation is the report's "Bill reconciliation" section in
// the table formats (report --bill).
func writeReconciliation(b *bytes.Buffer, rc *billing.Reconciliation, p painter) {
	if rc == nil {
		return
	}
	names := make([]string, len(rc.Files))
	for i, f := range rc.Files {
		names[i] = f.Name
	}
	b.WriteString("\n" + p.paint(ansiBold, "Bill reconciliation") + " (" + strings.Join(names, ", ") + ": compute charges in the window, amortized)\n")
	tw := tabwriter.NewWriter(b, 0, 0, cellPadding, ' ', tabwriter.AlignRight)
	for _, l := range reconLines(rc) {
		io.WriteString(tw, indent+l[0]+"\t"+l[1]+"\t "+l[2]+"\n")
	}
	tw.Flush()
	if len(rc.UnmatchedGPULines) > 0 {
		b.WriteString("\n" + indent + "GPU capacity billed but not in the cluster:\n")
		tw = tabwriter.NewWriter(b, 0, 0, cellPadding, ' ', 0)
		for _, l := range rc.UnmatchedGPULines {
			io.WriteString(tw, indent+indent+l.ResourceID+"\t"+l.Provider+"\t"+l.InstanceType+"\t"+usdCents(l.USD)+"\n")
		}
		tw.Flush()
	}
	if len(rc.UnusedCommitments) > 0 {
		b.WriteString("\n" + indent + "Unused commitments in the window:\n")
		tw = tabwriter.NewWriter(b, 0, 0, cellPadding, ' ', 0)
		for _, u := range rc.UnusedCommitments {
			io.WriteString(tw, indent+indent+u.ID+"\t"+usdCents(u.USD)+"\n")
		}
		tw.Flush()
	}
	if len(rc.NodesWithoutBill) > 0 {
		b.WriteString(indent + "GPU nodes with no bill line (catalog or override prices): " + strings.Join(rc.NodesWithoutBill, ", ") + "\n")
	}
	if len(rc.NodesWithoutProviderID) > 0 {
		b.WriteString(indent + "of which without a cloud providerID (on-prem, never on a cloud bill): " + strings.Join(rc.NodesWithoutProviderID, ", ") + "\n")
	}
	if len(rc.Split) > 0 {
		b.WriteString("\n" + indent + "AWS split cost allocation vs gpuwise, per namespace:\n")
		tw = tabwriter.NewWriter(b, 0, 0, cellPadding, ' ', tabwriter.AlignRight)
		io.WriteString(tw, indent+indent+"namespace\tAWS split\tgpuwise\t\n")
		for _, s := range rc.Split {
			io.WriteString(tw, indent+indent+s.Namespace+"\t"+usdCents(s.AWSUSD)+"\t"+usdCents(s.GPUwiseUSD)+"\t\n")
		}
		tw.Flush()
		b.WriteString(indent + "Why they differ: " + rc.SplitNote + "\n")
	}
}

// BillInspection writes what billing exports hold (bill inspect).
func BillInspection(w io.Writer, in *billing.Inspection, f Format, o Options) error {
	return write(w, "bill inspect", f, o, writers{
		Table: func(w io.Writer) error { return inspectTable(w, in) },
		JSON:  func(w io.Writer) error { return encodeJSON(w, in) },
		YAML:  func(w io.Writer) error { return encodeYAML(w, in) },
		CSV:   func(w io.Writer) error { return inspectCSV(w, in) },
	})
}

func inspectTable(w io.Writer, in *billing.Inspection) error {
	var b bytes.Buffer
	b.WriteString("Billing export\n")
	for _, f := range in.Files {
		b.WriteString(indent + f.Name + ": " + string(f.Format) + ", " + strconv.FormatInt(f.Rows, 10) + " rows\n")
	}
	b.WriteString(indent + "billing periods: " + strings.Join(in.BillingPeriods, ", ") + "; charges " + in.ChargeStart + " to " + in.ChargeEnd + "\n")
	tw := tabwriter.NewWriter(&b, 0, 0, cellPadding, ' ', tabwriter.AlignRight)
	io.WriteString(tw, "\nprovider\tservice\trows\tBilledCost\tEffectiveCost\tListCost\t\n")
	for _, p := range in.Providers {
		io.WriteString(tw, p.Provider+"\t(all)\t"+strconv.FormatInt(p.Rows, 10)+"\t"+usdCents(p.BilledCost)+"\t"+usdCents(p.EffectiveCost)+"\t"+usdCents(p.ListCost)+"\t\n")
		for _, s := range in.Services {
			if s.Provider == p.Provider {
				io.WriteString(tw, "\t"+s.Service+"\t"+strconv.FormatInt(s.Rows, 10)+"\t"+usdCents(s.BilledCost)+"\t"+usdCents(s.EffectiveCost)+"\t"+usdCents(s.ListCost)+"\t\n")
			}
		}
	}
	tw.Flush()
	b.WriteString("\nCompute instances billed: " + strconv.Itoa(in.ComputeResources) + "; GPU instances: " + strconv.Itoa(len(in.GPUInstances)) + "\n")
	tw = tabwriter.NewWriter(&b, 0, 0, cellPadding, ' ', 0)
	for _, g := range in.GPUInstances {
		extra := ""
		if g.Spot {
			extra = "spot"
		}
		if g.Commitment != "" {
			extra = strings.TrimSpace(extra + " committed")
		}
		io.WriteString(tw, indent+g.ResourceID+"\t"+g.Provider+"\t"+g.InstanceType+"\t"+decimal(g.Hours, 1)+" h\t"+usdCents(g.EffectiveCost)+"\t"+extra+"\n")
	}
	tw.Flush()
	_, err := w.Write(trimLines(b.Bytes()))
	return err
}

// inspectCSV is one row per provider and service, numbers at full
// precision.
func inspectCSV(w io.Writer, in *billing.Inspection) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"provider", "service", "rows", "billed_cost", "effective_cost", "list_cost"})
	for _, s := range in.Services {
		cw.Write([]string{s.Provider, s.Service, strconv.FormatInt(s.Rows, 10), exact(s.BilledCost), exact(s.EffectiveCost), exact(s.ListCost)})
	}
	cw.Flush()
	return cw.Error()
}

// reconGrids are the reconciliation as titled tables, for markdown and
// HTML (the same lines as the table section).
func reconGrids(rc *billing.Reconciliation) []grid {
	if rc == nil {
		return nil
	}
	names := make([]string, len(rc.Files))
	for i, f := range rc.Files {
		names[i] = f.Name
	}
	row := func(key string, cells ...string) gridRow {
		return gridRow{Key: key, Whole: true, Cells: cells, Hot: make([]bool, len(cells))}
	}
	sum := grid{Title: "Bill reconciliation", KeyTitle: "item", Cols: []column{{Title: "USD"}, {Title: "detail"}},
		Caption: "from " + strings.Join(names, ", ") + ": compute charges in the window, amortized"}
	for _, l := range reconLines(rc) {
		sum.Rows = append(sum.Rows, row(l[0], l[1], l[2]))
	}
	nodes := grid{Title: "Bill per GPU node", KeyTitle: "node", Caption: "each GPU node's bill in the window beside gpuwise's cost of it, and the price it used",
		Cols: []column{{Title: "resource id"}, {Title: "hours"}, {Title: "billed hours"}, {Title: "bill"}, {Title: "gpuwise"}, {Title: "price"}, {Title: "as of"}}}
	for _, n := range rc.Nodes {
		nodes.Rows = append(nodes.Rows, row(n.Node, orDash(n.ResourceID), decimal(n.Hours, 2), decimal(n.BilledHours, 2),
			usdCents(n.BillUSD), usdCents(n.GPUwiseUSD), originOr(n.PriceOrigin)+nodeFlags(n), orDash(n.PriceAsOf)))
	}
	out := []grid{sum, nodes}
	if len(rc.UnmatchedGPULines) > 0 {
		g := grid{Title: "GPU capacity billed but not in the cluster", KeyTitle: "resource id", Caption: "billed GPU instances no node of the cluster claims: nodes that left, another cluster",
			Cols: []column{{Title: "provider"}, {Title: "instance type"}, {Title: "bill"}}}
		for _, l := range rc.UnmatchedGPULines {
			g.Rows = append(g.Rows, row(l.ResourceID, l.Provider, l.InstanceType, usdCents(l.USD)))
		}
		out = append(out, g)
	}
	if len(rc.UnusedCommitments) > 0 {
		g := grid{Title: "Unused commitments", KeyTitle: "commitment", Caption: "the commitments' unused cost in the window, on their own ids (no node's)",
			Cols: []column{{Title: "unused"}}}
		for _, u := range rc.UnusedCommitments {
			g.Rows = append(g.Rows, row(u.ID, usdCents(u.USD)))
		}
		out = append(out, g)
	}
	if len(rc.Split) > 0 {
		g := grid{Title: "AWS split cost allocation vs gpuwise", KeyTitle: "namespace", Caption: "per namespace, AWS's split cost (CUR 2.0) beside gpuwise's cost",
			Cols: []column{{Title: "AWS split"}, {Title: "gpuwise"}}, Footnotes: []string{"Why they differ: " + rc.SplitNote}}
		for _, s := range rc.Split {
			g.Rows = append(g.Rows, row(s.Namespace, usdCents(s.AWSUSD), usdCents(s.GPUwiseUSD)))
		}
		out = append(out, g)
	}
	return out
}

// reconLines are the reconciliation's summary lines: label, dollars,
// detail.
func reconLines(rc *billing.Reconciliation) [][3]string {
	return [][3]string{
		{"bill", usdCents(rc.BillUSD), "every compute charge in the window"},
		{"matched to GPU nodes", usdCents(rc.MatchedUSD), "gpuwise prices these node-hours from the bill: " + usdCents(rc.GPUwiseMatchedUSD) +
			" (difference " + usdCents(rc.DifferenceUSD) + ")"},
		{"matched to CPU-only nodes", usdCents(rc.CPUNodesUSD), "outside the GPU cost report"},
		{"unmatched", usdCents(rc.UnmatchedBillUSD), strconv.Itoa(len(rc.UnmatchedGPULines)) + " GPU instance(s) not in the cluster, " +
			usdCents(rc.UnmatchedOtherUSD) + " other instances"},
		{"not on the bill", usdCents(rc.UnbilledNodeUSD), strconv.Itoa(len(rc.NodesWithoutBill)) + " GPU node(s) without a bill line, and hours the bill does not cover (catalog prices)"},
		{"commitment coverage", percent(rc.CommitmentCoverage), usdCents(rc.CommittedUSD) + " of the matched cost under savings plans or reservations"},
		{"unused commitment", usdCents(rc.UnusedCommitmentUSD), "in the window, on the commitments themselves (no node's)"},
	}
}

func originOr(o string) string {
	if o == "" {
		return "unpriced"
	}
	return o
}

func nodeFlags(n billing.NodeReconciled) string {
	var f []string
	for _, x := range []struct {
		on   bool
		name string
	}{{n.Committed, "committed"}, {n.Spot, "spot"}, {n.SharedCharge, "shared charge"}} {
		if x.on {
			f = append(f, x.name)
		}
	}
	if len(f) == 0 {
		return ""
	}
	return " (" + strings.Join(f, ", ") + ")"
}

// reconCSVHeader names the reconciliation CSV's columns (report --bill
// -o csv --csv-table reconciliation): one line per summary figure, GPU
// node, unmatched GPU instance, unused commitment and split namespace,
// told apart by section; dollars at full precision, empty where a line
// has none.
var reconCSVHeader = []string{"section", "name", "resource_id", "provider", "instance_type", "hours", "billed_hours",
	"bill_usd", "gpuwise_usd", "share", "price_origin", "price_as_of", "price_source", "committed", "spot", "shared_charge"}

// ReconciliationCSV writes the reconciliation as one CSV table.
func ReconciliationCSV(w io.Writer, rc *billing.Reconciliation) error {
	if rc == nil {
		return fmt.Errorf("rendering csv reconciliation: no reconciliation (give --bill FILE)")
	}
	cw := csv.NewWriter(w)
	cw.Write(reconCSVHeader)
	line := func(section, name, bill, gw, share string) {
		cw.Write([]string{section, name, "", "", "", "", "", bill, gw, share, "", "", "", "", "", ""})
	}
	share := ""
	if rc.CommitmentCoverage != nil {
		share = exact(*rc.CommitmentCoverage)
	}
	line("summary", "bill", exact(rc.BillUSD), "", "")
	line("summary", "matched", exact(rc.MatchedUSD), exact(rc.GPUwiseMatchedUSD), "")
	line("summary", "difference", "", exact(rc.DifferenceUSD), "")
	line("summary", "cpu_nodes", exact(rc.CPUNodesUSD), "", "")
	line("summary", "unmatched", exact(rc.UnmatchedBillUSD), "", "")
	line("summary", "unmatched_other", exact(rc.UnmatchedOtherUSD), "", "")
	line("summary", "gpuwise_node", "", exact(rc.GPUwiseNodeUSD), "")
	line("summary", "unbilled_node", "", exact(rc.UnbilledNodeUSD), "")
	line("summary", "committed", exact(rc.CommittedUSD), "", share)
	line("summary", "unused_commitment", exact(rc.UnusedCommitmentUSD), "", "")
	for _, n := range rc.Nodes {
		cw.Write([]string{"node", n.Node, n.ResourceID, "", "", exact(n.Hours), exact(n.BilledHours), exact(n.BillUSD), exact(n.GPUwiseUSD), "",
			n.PriceOrigin, n.PriceAsOf, n.PriceSource, strconv.FormatBool(n.Committed), strconv.FormatBool(n.Spot), strconv.FormatBool(n.SharedCharge)})
	}
	for _, l := range rc.UnmatchedGPULines {
		cw.Write([]string{"unmatched_gpu", l.ResourceID, l.ResourceID, l.Provider, l.InstanceType, "", "", exact(l.USD), "", "", "", "", "", "", "", ""})
	}
	for _, u := range rc.UnusedCommitments {
		line("unused_commitment", u.ID, exact(u.USD), "", "")
	}
	for _, s := range rc.Split {
		line("split", s.Namespace, exact(s.AWSUSD), exact(s.GPUwiseUSD), "")
	}
	cw.Flush()
	return cw.Error()
}
