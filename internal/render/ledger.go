package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/ledger"
)

// Ledger writes the savings ledger in format f: json and yaml are the
// ledger's documented fields (docs/savings.md), csv one row per action;
// table, markdown and html show the summary, the plan, the metrics and red
// flags (html as one page with headline cards and a before/after bar).
func Ledger(w io.Writer, l *ledger.Ledger, f Format, o Options) error {
	if l == nil {
		return fmt.Errorf("rendering ledger: no ledger")
	}
	v := newLedgerView(l)
	return write(w, "ledger", f, o, writers{
		Table: func(w io.Writer) error {
			d := ledgerDoc(v)
			d.width = o.Width
			return d.writeText(w)
		},
		Wide:     ledgerDoc(v).writeText,
		Markdown: ledgerDoc(v).writeMarkdown,
		HTML:     func(w io.Writer) error { return ledgerPage.Execute(w, v) },
		JSON:     func(w io.Writer) error { return encodeJSON(w, l) },
		YAML:     func(w io.Writer) error { return encodeYAML(w, l) },
		CSV:      func(w io.Writer) error { return writeLedgerCSV(w, l) },
	})
}

// ledgerDoc is the ledger as a document for the terminal and markdown.
func ledgerDoc(v ledgerView) *doc {
	d := &doc{title: "gpuwise savings plan"}
	if len(v.Partial) > 0 {
		d.line(partialTitle)
		for _, s := range v.Partial {
			d.item(s)
		}
		d.line("")
	}
	d.line(v.Window + " · source " + v.Source + " · $/month at 730 h · nothing applied")
	d.line("")
	d.heading("Summary")
	for _, s := range v.Summary {
		d.item(s)
	}
	d.line("")
	d.heading("Before → after")
	d.item(v.BeforeAfter)
	d.item(v.Bridge)
	d.line("")
	d.heading("Levers, in the order they apply")
	d.table([]string{"lever", "saves $/month", "actions", "not counted"}, v.Levers)
	for _, ph := range v.Phases {
		d.heading(ph.Title)
		if len(ph.Groundwork) > 0 {
			d.line("Groundwork (saves nothing itself; its figure is never in the saving):")
			d.tableKeep(groundworkHeader, ph.Groundwork, groundworkKeep...)
		}
		if len(ph.Rows) == 0 {
			if len(ph.Groundwork) == 0 {
				d.line("Nothing in this phase.")
			} else {
				d.line("No money action in this phase.")
			}
			d.line("")
			continue
		}
		d.tableKeep(actionHeader, ph.Rows, actionKeep...)
		for _, det := range ph.Details {
			d.line(det.Head)
			for _, l := range det.Lines {
				d.item(l)
			}
			d.line("")
		}
	}
	d.heading("FinOps metrics")
	d.table([]string{"metric", "value", "target", "status", "detail"}, v.Metrics)
	if len(v.UnitCosts) > 0 {
		d.heading("Unit costs per serving workload and model name")
		d.table(unitCostHeader, v.UnitCosts)
	}
	d.heading("Red flags")
	d.table([]string{"flag", "status", "at stake (a cost, not a saving)", "actions", "detail"}, v.Flags)
	d.heading("Not counted")
	if len(v.NotCounted) == 0 {
		d.line("Everything found is counted.")
	} else {
		d.table([]string{"lever", "target", "why"}, v.NotCounted)
		if v.MoreNotCounted > 0 {
			d.linef("… %d more (all in -o json).", v.MoreNotCounted)
		}
	}
	if len(v.Notes) > 0 {
		d.line("")
		d.heading("Notes")
		for _, n := range v.Notes {
			d.item(n)
		}
	}
	return d
}

// ledgerCSVHeader names the CSV columns; their order is stable.
var ledgerCSVHeader = []string{"id", "rank", "phase", "lever", "kind", "title", "target", "saving_usd_month",
	"effort_hours", "bundle_effort_hours", "payback_days", "confidence", "risk", "prerequisites", "realised_by", "partial"}

// writeLedgerCSV writes one row per action, money at full precision; the
// partial column is true on every row of a partial ledger.
func writeLedgerCSV(w io.Writer, l *ledger.Ledger) error {
	cw := csv.NewWriter(w)
	cw.Write(ledgerCSVHeader)
	partial := strconv.FormatBool(len(l.Partial) > 0)
	for _, a := range l.Actions {
		payback := ""
		if a.PaybackDays != nil {
			payback = strconv.FormatFloat(*a.PaybackDays, 'f', -1, 64)
		}
		cw.Write([]string{a.ID, strconv.Itoa(a.Rank), strconv.Itoa(a.Phase), a.Lever, a.Kind, a.Title, a.Target,
			plainUSD(a.SavingUSDMonth), strconv.FormatFloat(a.EffortHours, 'f', -1, 64),
			strconv.FormatFloat(a.BundleEffortHours, 'f', -1, 64), payback, string(a.Confidence), string(a.Risk),
			strings.Join(a.Prerequisites, " "), strings.Join(a.RealisedBy, " "), partial})
	}
	// The groundwork: phase 1, kind "groundwork:<kind>", no saving (the
	// saving_usd_month column empty: it is never a saving).
	for _, f := range l.Foundations {
		if f.Done {
			continue
		}
		cw.Write([]string{f.ID, "", "1", "groundwork", "groundwork:" + f.Kind, f.Title, f.Command, "",
			strconv.FormatFloat(f.EffortHours, 'f', -1, 64), strconv.FormatFloat(f.EffortHours, 'f', -1, 64), "", "", "",
			"", strings.Join(f.Unlocks, " "), partial})
	}
	cw.Flush()
	return cw.Error()
}

// unitCostCSVHeader names UnitCostsCSV's columns; their order is stable.
var unitCostCSVHeader = []string{"cluster", "metric", "workload", "model", "workloads", "server_metric", "cost_usd", "count", "per_unit_usd", "partial"}

// UnitCostsCSV writes the unit-cost metrics' figures (cost per 1,000
// inferences, per 100,000 tokens), one row per serving workload and per
// model name, of each cluster's ledger (advise -o csv --csv-table
// unit-costs), at full precision.
func UnitCostsCSV(w io.Writer, ls []ClusterLedger) error {
	cw := csv.NewWriter(w)
	cw.Write(unitCostCSVHeader)
	for _, c := range ls {
		partial := strconv.FormatBool(len(c.Ledger.Partial) > 0)
		for _, m := range c.Ledger.Metrics {
			for _, u := range m.UnitCosts {
				cw.Write([]string{c.Cluster, m.Name, u.Workload, u.Model, strings.Join(u.Workloads, " "), u.Metric,
					strconv.FormatFloat(u.CostUSD, 'f', -1, 64), strconv.FormatFloat(u.Count, 'f', -1, 64),
					strconv.FormatFloat(u.PerUnit, 'f', -1, 64), partial})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// ClusterLedger is one cluster's ledger, for ClusterLedgers.
type ClusterLedger struct {
	Cluster string         `json:"cluster"`
	Ledger  *ledger.Ledger `json:"ledger"`
}

// clusterLedgers is the JSON and YAML form of several clusters' ledgers:
// each cluster's own, and their sums.
type clusterLedgers struct {
	BeforeUSDMonth float64         `json:"before_usd_month"`
	AfterUSDMonth  float64         `json:"after_usd_month"`
	SavingUSDMonth float64         `json:"saving_usd_month"`
	Clusters       []ClusterLedger `json:"clusters"`
}

// ClusterLedgers writes several clusters' own ledgers, one after the
// other under the cluster's name, then their sum (the cents of each
// cluster's before, after and saving added up); CSV is one table with a
// cluster column, HTML one page with each cluster's ledger and the sum.
func ClusterLedgers(w io.Writer, ls []ClusterLedger, f Format, o Options) error {
	var sum clusterLedgers
	var before, after ledger.Cents
	for _, c := range ls {
		before, after = before+c.Ledger.Before(), after+c.Ledger.After()
	}
	sum.BeforeUSDMonth, sum.AfterUSDMonth, sum.SavingUSDMonth = before.USD(), after.USD(), (before - after).USD()
	sum.Clusters = ls
	text := func(f Format) func(io.Writer) error {
		return func(w io.Writer) error {
			for _, c := range ls {
				heading := "CLUSTER " + c.Cluster + "\n\n"
				if f == Markdown {
					heading = "# Cluster " + c.Cluster + "\n\n"
				}
				if _, err := io.WriteString(w, heading); err != nil {
					return err
				}
				if err := Ledger(w, c.Ledger, f, Options{}); err != nil {
					return err
				}
				if _, err := io.WriteString(w, "\n"); err != nil {
					return err
				}
			}
			_, err := fmt.Fprintf(w, "ALL %d CLUSTER(S) (each cluster's own ledger; nothing shared between them)\n- %s/month → %s/month: recoverable %s/month\n",
				len(ls), before, after, before-after)
			return err
		}
	}
	return write(w, "ledgers", f, o, writers{
		Table:    text(Table),
		Wide:     text(Wide),
		Markdown: text(Markdown),
		JSON:     func(w io.Writer) error { return encodeJSON(w, sum) },
		YAML:     func(w io.Writer) error { return encodeYAML(w, sum) },
		CSV:      func(w io.Writer) error { return clusterLedgersCSV(w, ls) },
		HTML:     func(w io.Writer) error { return clusterLedgersDoc(ls, before, after).writeHTML(w) },
	})
}
