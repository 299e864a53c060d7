package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/ledger"
)

// ledgerView is what the human formats of `gpuwise advise` share.
type ledgerView struct {
	Window, Source string
	// PartialTitle and Partial, when set, are shown first: what the
	// source could not read.
	PartialTitle   string
	Partial        []string
	Cards          []fact
	Summary        []string
	BeforeAfter    string
	Bridge         string
	Bar            beforeAfterBar
	Levers         [][]string
	Phases         []phaseView
	Metrics        [][]string
	UnitCosts      [][]string // unitCostRows: the unit-cost metrics per workload and model name
	Flags          [][]string
	NotCounted     [][]string
	MoreNotCounted int
	Notes          []string
}

// phaseView is one part of the 30/60/90-day plan.
type phaseView struct {
	Title   string
	Rows    [][]string
	Details []actionDetail
	// Groundwork are the phase's groundwork rows (days 0–30): no saving
	// of their own, their figure labelled (groundworkHeader).
	Groundwork [][]string
}

// groundworkHeader: the groundwork's figure is never a saving.
var groundworkHeader = []string{"ID", "figure (not a saving)", "effort", "unlocks", "action", "command"}

// groundworkKeep are the columns a narrow terminal keeps.
var groundworkKeep = []int{0, 1, 4}

// groundworkRows are a phase's groundwork, as groundworkHeader reads.
func groundworkRows(l *ledger.Ledger, ids []string) [][]string {
	var rows [][]string
	for _, id := range ids {
		for _, f := range l.Foundations {
			if f.ID != id {
				continue
			}
			fig := "—"
			switch {
			case f.USDMonth != nil:
				fig = monthly(*f.USDMonth) + ": " + f.Figure
			case f.GPUHours != nil:
				fig = decimal(*f.GPUHours, 0) + " GPU-hours: " + f.Figure
			default:
				fig = f.Figure
			}
			unlocks := orDash(strings.Join(f.Unlocks, ", "))
			if f.UnlocksWhy != "" {
				unlocks += " (" + f.UnlocksWhy + ")"
			}
			rows = append(rows, []string{f.ID, fig, decimal(f.EffortHours, 2) + " h", unlocks, f.Title, f.Command})
		}
	}
	return rows
}

// actionDetail is the why, confidence, risk, evidence and artefacts of
// one action.
type actionDetail struct {
	Head  string
	Lines []string
}

// beforeAfterBar draws the modelled monthly cost before and after.
type beforeAfterBar struct {
	Before, After     string
	AfterWidth, Width string
}

// maxNotCounted keeps the human formats' not-counted list short: this many
// per lever, later levers first (closest to money); json and yaml have
// every entry.
const maxNotCounted = 6

func notCounted(l *ledger.Ledger) ([][]string, int) {
	var rows [][]string
	more := 0
	for i := len(l.Levers) - 1; i >= 0; i-- {
		shown := 0
		for _, n := range l.NotCounted {
			if n.Lever != l.Levers[i].Name {
				continue
			}
			if shown == maxNotCounted {
				more++
				continue
			}
			shown++
			rows = append(rows, []string{n.Lever, n.Target, n.Reason})
		}
	}
	return rows, more
}

// actionHeader: the title last, where a narrow terminal wraps it.
var actionHeader = []string{"ID", "$/month", "effort", "payback", "confidence", "risk", "needs", "action"}

// actionKeep are the columns a narrow terminal keeps: what to do and what
// it is worth (-o wide shows the rest).
var actionKeep = []int{0, 1, 7}

func newLedgerView(l *ledger.Ledger) ledgerView {
	v := ledgerView{Window: windowSpan(l.Window) + " (" + windowHours(l.Window.Hours()) + ")", Source: orUnknown(l.Source), Summary: l.Summary.Lines}
	if len(l.Partial) > 0 {
		v.PartialTitle, v.Partial = partialTitle, l.Partial
	}
	v.Cards = ledgerCards(l)
	v.BeforeAfter = fmt.Sprintf("%s → %s (%d → %d GPU nodes, %d → %d GPUs)", monthly(l.BeforeUSDMonth), monthly(l.AfterUSDMonth),
		l.NodesBefore, l.NodesAfter, l.GPUsBefore, l.GPUsAfter)
	if l.UnpricedNodes > 0 {
		v.BeforeAfter += fmt.Sprintf("; %d unpriced node(s) are in the node counts, not the dollars", l.UnpricedNodes)
	}
	v.Bridge = l.Bridge.Text()
	v.Bar = newBeforeAfterBar(l)
	for _, lr := range l.Levers {
		v.Levers = append(v.Levers, []string{lr.Name, usdCents(lr.SavingUSDMonth), strconv.Itoa(lr.Actions), strconv.Itoa(lr.NotCounted)})
	}
	v.Phases = phaseViews(l)
	for _, m := range l.Metrics {
		v.Metrics = append(v.Metrics, []string{m.Title, metricValue(m), m.Target, string(m.Status), m.Detail})
	}
	v.UnitCosts = unitCostRows(l)
	for _, f := range l.RedFlags {
		v.Flags = append(v.Flags, []string{f.Title, string(f.Status), atStake(f), strings.Join(f.Actions, ", "), f.Detail})
	}
	v.NotCounted, v.MoreNotCounted = notCounted(l)
	v.Notes = l.Notes
	return v
}

func ledgerCards(l *ledger.Ledger) []fact {
	s := l.Summary
	cards := []fact{
		{Label: "GPU spend", Value: monthly(s.SpendUSDMonth), Detail: "the cost report's run-rate for the window"},
		{Label: "GPU utilization", Value: percent(s.Utilization), Detail: "active ÷ provisioned GPU-hours"},
		{Label: "Recoverable", Value: monthly(s.RecoverableUSDMonth), Detail: fmt.Sprintf("%s → %s for the GPU nodes alive at the window's end", money(l.BeforeUSDMonth), money(l.AfterUSDMonth))},
		{Label: "Payback", Value: days(l.Payback.Days), Detail: fmt.Sprintf("%s engineer-hours at %s/h (%s)", decimal(l.Payback.EffortHours, 1), money(l.Payback.EngineerUSDPerHour), money(l.Payback.OneTimeUSD))},
	}
	return cards
}

func phaseViews(l *ledger.Ledger) []phaseView {
	byID := map[string]*ledger.Action{}
	for i := range l.Actions {
		byID[l.Actions[i].ID] = &l.Actions[i]
	}
	var out []phaseView
	for _, ph := range l.Phases {
		pv := phaseView{Title: fmt.Sprintf("Days %s: %s", ph.Days, ph.Name)}
		if len(ph.Actions) > 0 {
			pv.Title += fmt.Sprintf(" (%s, %s engineer-hours)", monthly(ph.SavingUSDMonth), decimal(ph.EffortHours, 1))
		}
		if len(ph.Foundations) > 0 {
			pv.Title += fmt.Sprintf("; groundwork %s (%s engineer-hours, no saving of its own)", strings.Join(ph.Foundations, ", "), decimal(ph.FoundationEffortHours, 1))
			pv.Groundwork = groundworkRows(l, ph.Foundations)
		}
		for _, id := range ph.Actions {
			a := byID[id]
			pv.Rows = append(pv.Rows, actionRow(a))
			pv.Details = append(pv.Details, detailOf(a))
		}
		out = append(out, pv)
	}
	return out
}

func actionRow(a *ledger.Action) []string {
	saving := usdCents(a.SavingUSDMonth)
	switch {
	case len(a.RealisedBy) > 0 && a.SavingUSDMonth > 0: // saves on its own and is needed by others
		saving += ", needed by " + strings.Join(a.RealisedBy, ", ")
	case len(a.RealisedBy) > 0:
		saving = "$0, realised by " + strings.Join(a.RealisedBy, ", ")
	}
	return []string{a.ID, saving, decimal(a.EffortHours, 2) + " h", days(a.PaybackDays), string(a.Confidence), string(a.Risk), orDash(strings.Join(a.Prerequisites, ", ")), a.Title}
}

func detailOf(a *ledger.Action) actionDetail {
	d := actionDetail{Head: a.ID + " " + a.Title}
	d.Lines = append(d.Lines, "why: "+a.Why,
		"confidence "+string(a.Confidence)+": "+a.ConfidenceReason,
		"risk "+string(a.Risk)+": "+a.RiskReason)
	var ev []string
	for _, e := range a.Evidence {
		ev = append(ev, e.Name+" "+strconv.FormatFloat(e.Value, 'f', -1, 64)+" "+e.Unit)
	}
	d.Lines = append(d.Lines, "evidence: "+strings.Join(ev, "; "))
	if a.PaybackDays != nil {
		d.Lines = append(d.Lines, fmt.Sprintf("effort with prerequisites: %s h, %s one-time", decimal(a.BundleEffortHours, 2), money(a.OneTimeUSD)))
	}
	for i, it := range a.Items {
		if i == maxItems {
			d.Lines = append(d.Lines, fmt.Sprintf("… %d more workload(s) (all in -o json)", len(a.Items)-maxItems))
			break
		}
		d.Lines = append(d.Lines, fmt.Sprintf("%s: %s (confidence %s, risk %s)", it.Target, it.Why, it.Confidence, it.Risk))
	}
	for _, art := range a.Artefacts {
		line := "do: " + art.Command
		if n := len(art.Files); n > 0 {
			line += " → " + strings.Join(art.Files[:min(n, maxItems)], ", ")
			if n > maxItems {
				line += fmt.Sprintf(" and %d more", n-maxItems)
			}
		}
		d.Lines = append(d.Lines, line)
	}
	return d
}

// maxItems caps the workloads and files a human format lists per action.
const maxItems = 5

func newBeforeAfterBar(l *ledger.Ledger) beforeAfterBar {
	b := beforeAfterBar{Before: monthly(l.BeforeUSDMonth), After: monthly(l.AfterUSDMonth), Width: px(barMax), AfterWidth: px(0)}
	if l.BeforeUSDMonth > 0 {
		b.AfterWidth = px(l.AfterUSDMonth / l.BeforeUSDMonth * barMax)
	}
	return b
}

// barMax is the before bar's width in pixels.
const barMax = 600

func metricValue(m ledger.Metric) string {
	if m.Value == nil {
		return "n/a"
	}
	switch m.Unit {
	case "%":
		return decimal(*m.Value, 1) + "%"
	case "USD":
		return usdCents(*m.Value)
	}
	return decimal(*m.Value, 0) + " " + m.Unit
}

// unitCostHeader names unitCostRows' columns.
var unitCostHeader = []string{"unit cost", "workload or model", "server (its request counter)", "window cost", "count", "per unit"}

// unitCostRows are the unit-cost metrics' figures (Metric.UnitCosts): one
// row per serving workload, then per model name, each metric in turn.
func unitCostRows(l *ledger.Ledger) [][]string {
	var rows [][]string
	for _, m := range l.Metrics {
		for _, u := range m.UnitCosts {
			who := u.Workload
			if u.Model != "" {
				who = fmt.Sprintf("model %s (%d workload(s))", u.Model, len(u.Workloads))
			}
			rows = append(rows, []string{m.Title, who, u.Metric, usdCents(u.CostUSD), decimal(u.Count, 0), unitPrice(u.PerUnit)})
		}
	}
	return rows
}

func atStake(f ledger.RedFlag) string {
	if f.AtStakeUSDMonth == nil {
		return "-"
	}
	return monthly(*f.AtStakeUSDMonth)
}

func days(d *float64) string {
	switch {
	case d == nil:
		return "-"
	case *d < 1:
		return "< 1 day"
	}
	return decimal(*d, 0) + " days"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
