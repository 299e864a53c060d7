package render

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"

	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// csvPart is one cluster's CSV (its header first), for clusterCSV.
type csvPart struct {
	cluster string
	write   func(io.Writer) error
}

// clusterCSV writes several clusters' CSVs as one: the header once, with a
// first column "cluster", and every cluster's rows under its name.
func clusterCSV(w io.Writer, parts []csvPart) error {
	cw := csv.NewWriter(w)
	for i, p := range parts {
		var b bytes.Buffer
		if err := p.write(&b); err != nil {
			return err
		}
		rows, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			return fmt.Errorf("cluster %s: %w", p.cluster, err)
		}
		for j, r := range rows {
			if j == 0 {
				if i == 0 {
					cw.Write(append([]string{"cluster"}, r...))
				}
				continue
			}
			cw.Write(append([]string{p.cluster}, r...))
		}
	}
	cw.Flush()
	return cw.Error()
}

// clusterLedgersCSV is ClusterLedgers' CSV: one row per action of every
// cluster, the cluster first.
func clusterLedgersCSV(w io.Writer, ls []ClusterLedger) error {
	parts := make([]csvPart, len(ls))
	for i, c := range ls {
		parts[i] = csvPart{c.Cluster, func(w io.Writer) error { return writeLedgerCSV(w, c.Ledger) }}
	}
	return clusterCSV(w, parts)
}

// clusterLedgersDoc is ClusterLedgers' HTML document: each cluster's
// ledger document under its name, then their sum.
func clusterLedgersDoc(ls []ClusterLedger, before, after ledger.Cents) *doc {
	d := &doc{title: fmt.Sprintf("gpuwise savings plan: %d clusters, each its own ledger", len(ls))}
	for _, c := range ls {
		d.heading("Cluster " + c.Cluster)
		d.blocks = append(d.blocks, ledgerDoc(newLedgerView(c.Ledger)).blocks...)
	}
	d.heading(fmt.Sprintf("All %d clusters (nothing shared between them)", len(ls)))
	rows := make([][]string, 0, len(ls)+1)
	for _, c := range ls {
		rows = append(rows, []string{c.Cluster, c.Ledger.Before().String(), c.Ledger.After().String(), c.Ledger.Saving().String()})
	}
	rows = append(rows, []string{"all", before.String(), after.String(), (before - after).String()})
	d.table([]string{"cluster", "before $/month", "after $/month", "recoverable $/month"}, rows)
	return d
}

// ClusterPlan is one cluster's own plan, for ClusterPlans.
type ClusterPlan struct {
	Cluster string        `json:"cluster"`
	Plan    *packing.Plan `json:"plan"`
}

// clusterPlans is the JSON and YAML form of several clusters' plans: each
// cluster's own and the sums of their priced totals (null where no
// cluster's nodes are priced).
type clusterPlans struct {
	BeforeUSDMonth  *float64      `json:"before_usd_per_month"`
	AfterUSDMonth   *float64      `json:"after_usd_per_month"`
	SavingsUSDMonth *float64      `json:"savings_usd_per_month"`
	NodesBefore     int           `json:"nodes_before"`
	NodesAfter      int           `json:"nodes_after"`
	UnpricedBefore  int           `json:"unpriced_nodes_before"`
	UnpricedAfter   int           `json:"unpriced_nodes_after"`
	Moves           int           `json:"moves"`
	Unplaced        int           `json:"unplaced"`
	Clusters        []ClusterPlan `json:"clusters"`
}

// addUSD adds v to *sum, leaving nil only while every v is nil.
func addUSD(sum **float64, v *float64) {
	if v == nil {
		return
	}
	if *sum == nil {
		*sum = new(float64)
	}
	**sum += *v
}

// totalUSD is a plan total over priced nodes, saying how many are left out.
func totalUSD(t packing.Totals) string {
	return withUnpriced(t.USDPerMonth, t.UnpricedNodes, "n/a (unpriced)", usdCents)
}

// maybeUSD is a plan figure, n/a when no node is priced.
func maybeUSD(v *float64) string { return moneyOr(v, "n/a (unpriced)", usdCents) }

// ClusterPlans writes several clusters' own plans (plan --by cluster), one
// after the other under the cluster's name, then their sum: every format
// (CSV one table with a cluster column; HTML one page).
func ClusterPlans(w io.Writer, ps []ClusterPlan, shapes packing.Shapes, f Format, o Options) error {
	sum := clusterPlans{Clusters: ps}
	for _, c := range ps {
		if c.Plan == nil {
			return fmt.Errorf("rendering plan: cluster %s has no plan", c.Cluster)
		}
		addUSD(&sum.BeforeUSDMonth, c.Plan.Before.USDPerMonth)
		addUSD(&sum.AfterUSDMonth, c.Plan.After.USDPerMonth)
		addUSD(&sum.SavingsUSDMonth, c.Plan.SavingsUSDPerMonth)
		sum.NodesBefore += c.Plan.Before.Nodes
		sum.NodesAfter += c.Plan.After.Nodes
		sum.UnpricedBefore += c.Plan.Before.UnpricedNodes
		sum.UnpricedAfter += c.Plan.After.UnpricedNodes
		sum.Moves += len(c.Plan.Moves)
		sum.Unplaced += len(c.Plan.Unplaced)
	}
	d := &doc{title: fmt.Sprintf("gpuwise consolidation plan: %d cluster(s), each packed alone", len(ps))}
	for _, c := range ps {
		d.heading("Cluster " + c.Cluster)
		d.blocks = append(d.blocks, planDoc(c.Plan, shapes).blocks...)
	}
	d.heading(fmt.Sprintf("All %d cluster(s) (no pod moves between clusters)", len(ps)))
	rows := make([][]string, 0, len(ps)+1)
	for _, c := range ps {
		rows = append(rows, []string{c.Cluster, fmt.Sprint(c.Plan.Before.Nodes), fmt.Sprint(c.Plan.After.Nodes),
			totalUSD(c.Plan.Before), totalUSD(c.Plan.After), maybeUSD(c.Plan.SavingsUSDPerMonth), fmt.Sprint(len(c.Plan.Moves)), fmt.Sprint(len(c.Plan.Unplaced))})
	}
	rows = append(rows, []string{"all", fmt.Sprint(sum.NodesBefore), fmt.Sprint(sum.NodesAfter),
		totalUSD(packing.Totals{USDPerMonth: sum.BeforeUSDMonth, UnpricedNodes: sum.UnpricedBefore}),
		totalUSD(packing.Totals{USDPerMonth: sum.AfterUSDMonth, UnpricedNodes: sum.UnpricedAfter}), maybeUSD(sum.SavingsUSDMonth), fmt.Sprint(sum.Moves), fmt.Sprint(sum.Unplaced)})
	d.table([]string{"cluster", "nodes before", "after", "$/month before", "after", "saves $/month", "moves", "unplaced"}, rows)
	parts := make([]csvPart, len(ps))
	for i, c := range ps {
		parts[i] = csvPart{c.Cluster, func(w io.Writer) error { return writePlanCSV(w, c.Plan) }}
	}
	return write(w, "plans", f, o, docWriters(d, writers{
		JSON: func(w io.Writer) error { return encodeJSON(w, sum) },
		YAML: func(w io.Writer) error { return encodeYAML(w, sum) },
		CSV:  func(w io.Writer) error { return clusterCSV(w, parts) },
	}))
}
