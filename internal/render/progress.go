package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/tracker"
)

// ProgressInput is a tracked plan and what it realised (app.ProgressResult,
// handed over by the front ends).
type ProgressInput struct {
	Cluster string
	Source  string
	Plan    *tracker.Plan
	Proof   *tracker.Proof
	Notes   []string
}

// ProgressDocument is the JSON and YAML form of `gpuwise progress` and
// /api/v1/progress (docs/progress.md): stable.
type ProgressDocument struct {
	Kind         string            `json:"kind"`
	Cluster      string            `json:"cluster"`
	Source       string            `json:"source"`
	Updated      time.Time         `json:"updated"`
	Observations int               `json:"observations"`
	Baseline     *tracker.Baseline `json:"baseline"`
	Counts       ProgressCounts    `json:"counts"`
	Actions      []ProgressAction  `json:"actions"`
	Total        tracker.Total     `json:"total"`
	// RedFlags are the seeds' red flags watched after each applied
	// action, blaming it (firing, ok, or no-data saying what is missing).
	RedFlags []tracker.Flag `json:"red_flags"`
	Notes    []string       `json:"notes"`
}

// ProgressCounts are the checklist's counts.
type ProgressCounts struct {
	Applied  int            `json:"applied"`
	Partly   int            `json:"partly"`
	Pending  int            `json:"pending"`
	Rejected int            `json:"rejected"`
	Retired  map[string]int `json:"retired"`
}

// ProgressAction is one tracked action with its realised saving.
type ProgressAction struct {
	*tracker.Action
	Realised *tracker.Realised `json:"realised"`
}

// NewProgressDocument is the stable document of a tracked plan.
func NewProgressDocument(in ProgressInput) ProgressDocument {
	p := in.Plan
	c := p.Count()
	d := ProgressDocument{Kind: "gpuwise.progress", Cluster: in.Cluster, Source: in.Source, Updated: p.Updated, Observations: p.Observations,
		Baseline: p.Baseline, Counts: ProgressCounts{Applied: c.Applied, Partly: c.Partly, Pending: c.Pending, Rejected: c.Rejected, Retired: c.Retired},
		Actions: []ProgressAction{}, RedFlags: []tracker.Flag{}, Notes: append([]string{}, in.Notes...)}
	real := map[string]*tracker.Realised{}
	if in.Proof != nil {
		for i := range in.Proof.Actions {
			real[in.Proof.Actions[i].ID] = &in.Proof.Actions[i]
		}
		d.Total = in.Proof.Total
		d.RedFlags = append(d.RedFlags, in.Proof.Flags...)
	}
	for _, a := range p.Actions {
		d.Actions = append(d.Actions, ProgressAction{Action: a, Realised: real[a.ID]})
	}
	return d
}

// Progress renders a tracked plan in any format.
func Progress(w io.Writer, in ProgressInput, f Format, o Options) error {
	if in.Plan == nil {
		return fmt.Errorf("rendering progress: no plan")
	}
	d := NewProgressDocument(in)
	doc := progressDoc(d)
	doc.width = o.Width
	return write(w, "progress", f, o, docWriters(doc, writers{
		Wide: progressDoc(d).writeText,
		JSON: func(w io.Writer) error { return encodeJSON(w, d) },
		YAML: func(w io.Writer) error { return encodeYAML(w, d) },
		CSV:  func(w io.Writer) error { return writeProgressCSV(w, d) },
	}))
}

func progressDoc(d ProgressDocument) *doc {
	out := &doc{title: "gpuwise progress"}
	out.line(fmt.Sprintf("cluster %s · %s · updated %s · %d window(s) observed · $/month at 730 h",
		d.Cluster, d.Source, progressStamp(d.Updated), d.Observations))
	out.line("")
	if b := d.Baseline; b != nil {
		out.heading("Baseline (day 0)")
		out.item(fmt.Sprintf("%s: spend %s (%s/month), GPU utilization %s, unused GPU cost %s",
			spanText(b.Window), usdCents(b.SpendUSD), usdCents(b.SpendUSDMonth), percent(b.Utilization), usdCents(b.UnusedGPUUSD)))
		out.item(fmt.Sprintf("the ledger then: %s/month → %s/month, %s/month to save in %d action(s)",
			usdCents(b.LedgerBeforeUSDMonth), usdCents(b.LedgerAfterUSDMonth), usdCents(b.LedgerSavingUSDMonth), len(b.Actions)))
		out.line("")
	}
	c := d.Counts
	out.heading("Checklist")
	retired := make([]string, 0, len(c.Retired))
	for _, k := range []string{tracker.Done, tracker.Obsolete, tracker.Superseded} {
		if n := c.Retired[k]; n > 0 {
			retired = append(retired, fmt.Sprintf("%d %s", n, k))
		}
	}
	line := fmt.Sprintf("%d applied, %d partly, %d pending, %d rejected", c.Applied, c.Partly, c.Pending, c.Rejected)
	if len(retired) > 0 {
		line += " (no longer proposed: " + strings.Join(retired, ", ") + ")"
	}
	out.item(line)
	rows := make([][]string, 0, len(d.Actions))
	for _, a := range d.Actions {
		rows = append(rows, []string{a.ID, strconv.Itoa(a.Phase), checklist(a.Action), shown(a.Action), a.Title,
			usdCents(a.PredictedUSDMonth), realisedText(a.Realised), rangeText(a.Realised)})
	}
	out.tableKeep([]string{"ID", "PHASE", "STATUS", "CLUSTER SHOWS", "ACTION", "PREDICTED $/MO", "REALISED $/MO", "RANGE"}, rows, 0, 2, 6)
	out.line("")
	out.heading("How each action was seen")
	for _, a := range d.Actions {
		s := a.ID + ": " + a.Detection
		if a.Mark != nil {
			s += fmt.Sprintf(" · marked %s at %s", a.Mark.Status, progressStamp(a.Mark.At))
			if a.Mark.Note != "" {
				s += " (" + a.Mark.Note + ")"
			}
		}
		if a.Retired != "" {
			s += " · " + a.Retired + ": " + a.RetiredWhy
		}
		if a.Realised != nil && a.Realised.Status != tracker.Measured && a.Realised.Status != tracker.NotApplied {
			s += " · " + a.Realised.Note
		}
		out.item(s)
	}
	out.line("")
	out.heading("Realised in total")
	t := d.Total
	if t.Status != tracker.Measured {
		out.item("not measured yet: " + t.Note)
	} else {
		out.item(fmt.Sprintf("baseline window %s: %s/month; latest %s: %s/month; change %s/month (range %s to %s)",
			spanText(*t.Before), usdCents(t.BeforeUSDMonth), spanText(*t.After), usdCents(t.AfterUSDMonth),
			usdCents(t.ChangeUSDMonth), usdCents(t.LowUSDMonth), usdCents(t.HighUSDMonth)))
		parts := []string{}
		for _, a := range d.Actions {
			if v, ok := t.Actions[a.ID]; ok {
				parts = append(parts, fmt.Sprintf("%s %s", a.ID, usdCents(v)))
			}
		}
		parts = append(parts, "other changes "+usdCents(t.OtherUSDMonth))
		out.item("of it: " + strings.Join(parts, ", ") + " (adds up to the change, to the cent)")
		out.item(fmt.Sprintf("predicted for the applied actions: %s/month", usdCents(t.PredictedUSDMonth)))
		if t.WorkBefore != nil {
			out.item(fmt.Sprintf("demand: %s → %s active GPU-hours an hour; at equal demand the change is %s/month, the demand change explains %s/month",
				decimal(*t.WorkBefore, 2), decimal(*t.WorkAfter, 2), usdCents(*t.AtEqualDemandUSD), usdCents(*t.DemandUSDMonth)))
		} else if t.Note != "" {
			out.item(t.Note)
		}
		out.item("normalised by " + t.Normalisation)
	}
	progressFlags(out, d.RedFlags)
	if len(d.Notes) > 0 {
		out.line("")
		out.heading("Notes")
		for _, n := range d.Notes {
			out.item(n)
		}
	}
	return out
}

// progressFlags lists the red flags: those firing with the action they
// blame and the advice, then what could not be watched.
func progressFlags(out *doc, fs []tracker.Flag) {
	out.line("")
	out.heading("Red flags after the applied actions")
	if len(fs) == 0 {
		out.item("none watched: no action is applied yet")
		return
	}
	ok := 0
	var unwatched []string
	for _, f := range fs {
		switch f.Status {
		case tracker.Firing:
			out.item(fmt.Sprintf("FIRING %s (blames %s, since %s): %s; %s", f.Name, f.Action, progressStamp(f.Since), f.Detail, f.Advice))
		case tracker.NoData:
			unwatched = append(unwatched, f.Action+" "+f.Name+": "+f.Detail)
		default:
			ok++
		}
	}
	out.item(fmt.Sprintf("%d firing, %d ok, %d without data (thresholds in docs/progress.md)", tracker.CountFiring(fs), ok, len(unwatched)))
	for _, u := range unwatched {
		out.item("not watched: " + u)
	}
}

// flagsOf is an action's red flags for the CSV: name=status, firing and
// no-data ones.
func flagsOf(fs []tracker.Flag, id string) string {
	var parts []string
	for _, f := range fs {
		if f.Action == id && f.Status != tracker.Clear {
			parts = append(parts, f.Name+"="+f.Status)
		}
	}
	return strings.Join(parts, ";")
}

func checklist(a *tracker.Action) string {
	s := string(a.Status)
	if a.Retired != "" {
		s += " (" + a.Retired + ")"
	}
	return s
}

func shown(a *tracker.Action) string {
	if a.Of == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d of %d", a.Detected, a.Of)
}

func realisedText(r *tracker.Realised) string {
	if r == nil {
		return ""
	}
	if r.Status == tracker.Measured {
		return usdCents(r.RealisedUSDMonth)
	}
	return r.Status
}

func rangeText(r *tracker.Realised) string {
	if r == nil || r.Status != tracker.Measured {
		return ""
	}
	return usdCents(r.LowUSDMonth) + " to " + usdCents(r.HighUSDMonth)
}

func progressStamp(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

func spanText(w cluster.Window) string {
	return progressStamp(w.Start) + " – " + progressStamp(w.End)
}

// writeProgressCSV is one row per tracked action, then the total.
func writeProgressCSV(w io.Writer, d ProgressDocument) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "lever", "kind", "title", "target", "phase", "status", "detected", "of", "proposed", "retired", "retired_why",
		"applied_at", "predicted_usd_month", "realised_status", "realised_usd_month", "low_usd_month", "high_usd_month", "detection", "red_flags"})
	for _, a := range d.Actions {
		rs, rv, lo, hi := "", "", "", ""
		if r := a.Realised; r != nil {
			rs = r.Status
			if r.Status == tracker.Measured {
				rv, lo, hi = plainUSD(r.RealisedUSDMonth), plainUSD(r.LowUSDMonth), plainUSD(r.HighUSDMonth)
			}
		}
		at := ""
		if !a.AppliedAt.IsZero() {
			at = a.AppliedAt.UTC().Format(time.RFC3339)
		}
		cw.Write([]string{a.ID, a.Lever, a.Kind, a.Title, a.Target, strconv.Itoa(a.Phase), string(a.Status), strconv.Itoa(a.Detected), strconv.Itoa(a.Of),
			strconv.FormatBool(a.Proposed), a.Retired, a.RetiredWhy, at, plainUSD(a.PredictedUSDMonth), rs, rv, lo, hi, a.Detection, flagsOf(d.RedFlags, a.ID)})
	}
	if t := d.Total; t.Status == tracker.Measured {
		cw.Write([]string{"total", "", "", "spend change, baseline window to latest", "", "", "", "", "", "", "", "", "",
			plainUSD(t.PredictedUSDMonth), t.Status, plainUSD(t.ChangeUSDMonth), plainUSD(t.LowUSDMonth), plainUSD(t.HighUSDMonth), "other changes " + plainUSD(t.OtherUSDMonth), ""})
	} else {
		cw.Write([]string{"total", "", "", "spend change, baseline window to latest", "", "", "", "", "", "", "", "", "", "", t.Status, "", "", "", t.Note, ""})
	}
	cw.Flush()
	return cw.Error()
}
