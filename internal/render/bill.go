package render

import (
	"bytes"
	"encoding/csv"
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
	line := func(label, v, detail string) { io.WriteString(tw, indent+label+"\t"+v+"\t "+detail+"\n") }
	line("bill", usdCents(rc.BillUSD), "every compute charge in the window")
	line("matched to GPU nodes", usdCents(rc.MatchedUSD), "gpuwise prices these node-hours from the bill: "+usdCents(rc.GPUwiseMatchedUSD)+
		" (difference "+usdCents(rc.DifferenceUSD)+")")
	line("matched to CPU-only nodes", usdCents(rc.CPUNodesUSD), "outside the GPU cost report")
	line("unmatched", usdCents(rc.UnmatchedBillUSD), strconv.Itoa(len(rc.UnmatchedGPULines))+" GPU instance(s) not in the cluster, "+
		usdCents(rc.UnmatchedOtherUSD)+" other instances")
	line("not on the bill", usdCents(rc.UnbilledNodeUSD), strconv.Itoa(len(rc.NodesWithoutBill))+" GPU node(s) without a bill line, and hours the bill does not cover (catalog prices)")
	line("commitment coverage", percent(rc.CommitmentCoverage), usdCents(rc.CommittedUSD)+" of the matched cost under savings plans or reservations")
	line("unused commitment", usdCents(rc.UnusedCommitmentUSD), "in the window, on the commitments themselves (no node's)")
	tw.Flush()
	if len(rc.UnmatchedGPULines) > 0 {
		b.WriteString("\n" + indent + "GPU capacity billed but not in the cluster:\n")
		tw = tabwriter.NewWriter(b, 0, 0, cellPadding, ' ', 0)
		for _, l := range rc.UnmatchedGPULines {
			io.WriteString(tw, indent+indent+l.ResourceID+"\t"+l.Provider+"\t"+l.InstanceType+"\t"+usdCents(l.USD)+"\n")
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
