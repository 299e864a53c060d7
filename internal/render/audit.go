package render

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// Audit writes audit findings in format f.
func Audit(w io.Writer, r *audit.Result, f Format, o Options) error {
	return AuditWithAdmission(w, r, nil, f, o)
}

// AuditWithAdmission writes the audit and its admission section (how the
// cluster enforces each admission rule and what it would have blocked):
// two summary lines under table, a second table under wide, an "admission" object in JSON and
// YAML, a section in markdown and HTML; CSV and SARIF carry the findings
// only. A nil adm writes the audit alone.
func AuditWithAdmission(w io.Writer, r *audit.Result, adm *policy.Enforcement, f Format, o Options) error {
	if r == nil {
		return fmt.Errorf("rendering audit: no audit")
	}
	d := auditDoc(r)
	admissionDoc(d, adm)
	return write(w, "audit", f, o, docWriters(d, writers{
		Table: func(w io.Writer) error { return auditTableDoc(r, adm).writeText(w) },
		Wide:  func(w io.Writer) error { return auditWideDoc(r, adm).writeText(w) },
		JSON:  func(w io.Writer) error { return encodeJSON(w, auditJSON{r, adm}) },
		YAML:  func(w io.Writer) error { return encodeYAML(w, auditJSON{r, adm}) },
		CSV:   func(w io.Writer) error { return writeAuditCSV(w, r) },
		SARIF: func(w io.Writer) error { return writeSARIF(w, r, o.Version) },
	}))
}

// atStakeNote says what the audit's dollars are: not savings.
const atStakeNote = "the cost of what the findings involve, not a saving and not in the savings ledger (gpuwise advise counts what fixing them recovers, once)"

// auditTableDoc is the audit for people at a glance: one row per rule
// with its findings' count, the dollars at stake and the first objects,
// then the admission section in two lines; -o wide has every finding with
// its evidence and fix.
func auditTableDoc(r *audit.Result, adm *policy.Enforcement) *doc {
	d := &doc{title: "gpuwise audit"}
	var rows [][]string
	for _, g := range groupFindings(r.Findings) {
		rows = append(rows, []string{g.rule, g.severity.String(), strconv.Itoa(g.count), pricedOr(g.usd, g.priced > 0, "-", plainUSD), g.what()})
	}
	d.table([]string{"RULE", "SEVERITY", "FINDINGS", "AT STAKE $/MONTH", "WHAT"}, rows)
	d.line(auditSummary(r))
	if len(r.Findings) > 0 {
		d.line("Each finding's object, evidence and fix: gpuwise audit -o wide (every field: -o json).")
	}
	noteLines(d, r.Notes)
	admissionSummary(d, adm)
	return d
}

// auditSummary is the audit's counts and dollars in one line.
func auditSummary(r *audit.Result) string {
	s := r.Summary
	return fmt.Sprintf("%d critical, %d warning, %d info; %s at stake where priced: %s. Source: %s",
		s.Critical, s.Warning, s.Info, plainMonthly(s.MonthlyUSD), atStakeNote, r.Source)
}

// noteLines adds each note as a "note: " line.
func noteLines(d *doc, notes []string) {
	for _, n := range notes {
		d.line("note: " + n)
	}
}

// findingGroup is one rule's findings.
type findingGroup struct {
	rule     string
	severity audit.Severity // the worst of them
	count    int
	usd      float64 // priced findings' $/month
	priced   int
	objects  []string
}

// groupFindings groups findings by rule, worst severity first, then most
// dollars, then rule ID.
func groupFindings(fs []audit.Finding) []*findingGroup {
	by := map[string]*findingGroup{}
	var out []*findingGroup
	for _, f := range fs {
		g := by[f.Rule]
		if g == nil {
			g = &findingGroup{rule: f.Rule, severity: f.Severity}
			by[f.Rule] = g
			out = append(out, g)
		}
		g.severity = max(g.severity, f.Severity)
		g.count++
		g.objects = append(g.objects, f.Object)
		if f.MonthlyUSD != nil {
			g.usd += *f.MonthlyUSD
			g.priced++
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.severity != b.severity {
			return a.severity > b.severity
		}
		if a.usd != b.usd {
			return a.usd > b.usd
		}
		return a.rule < b.rule
	})
	return out
}

// maxObjects is how many objects a rule's row names.
const maxObjects = 3

// what is the rule's summary and the first objects it found.
func (g *findingGroup) what() string {
	summary := g.rule
	for _, r := range audit.Rules {
		if r.ID == g.rule {
			summary = strings.TrimSuffix(r.Summary, ".")
			if i := strings.Index(summary, ":"); i > 0 {
				summary = summary[:i]
			}
		}
	}
	objs := g.objects
	more := ""
	if len(objs) > maxObjects {
		more = fmt.Sprintf(" and %d more", len(objs)-maxObjects)
		objs = objs[:maxObjects]
	}
	return summary + ": " + strings.Join(objs, ", ") + more
}

// auditWideDoc is every finding: one summary row each, then each
// finding's evidence and fix, then the admission section's table.
func auditWideDoc(r *audit.Result, adm *policy.Enforcement) *doc {
	d := &doc{title: "gpuwise audit"}
	rows := make([][]string, 0, len(r.Findings))
	for _, f := range r.Findings {
		rows = append(rows, []string{f.Severity.String(), f.Rule, f.Object, moneyOr(f.MonthlyUSD, "-", plainUSD), f.Message})
	}
	d.table([]string{"SEVERITY", "RULE", "OBJECT", "AT STAKE $/MONTH", "FINDING"}, rows)
	d.line(auditSummary(r))
	for i, f := range r.Findings {
		d.line("")
		d.linef("[%d] %s %s %s", i+1, f.Rule, f.Severity, f.Object)
		for _, e := range f.Evidence {
			d.line("    evidence: " + e)
		}
		d.line("    fix:")
		for _, line := range strings.Split(strings.TrimRight(f.Remediation, "\n"), "\n") {
			d.line("      " + line)
		}
	}
	noteLines(d, r.Notes)
	admissionTable(d, adm)
	return d
}

// SARIF 2.1.0, the subset CI systems read.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	ShortDescription sarifText `json:"shortDescription"`
	Default          struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties map[string]any  `json:"properties"`
}

type sarifLocation struct {
	Logical []sarifLogical `json:"logicalLocations"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func sarifLevel(s audit.Severity) string {
	switch s {
	case audit.Critical:
		return "error"
	case audit.Warning:
		return "warning"
	}
	return "note"
}

// writeSARIF writes r as a SARIF 2.1.0 log with one run; objects are
// logical locations since findings are about cluster objects, not files.
func writeSARIF(w io.Writer, r *audit.Result, version string) error {
	d := sarifDriver{Name: "gpuwise", InformationURI: "https://github.com/gpuwise/gpuwise/blob/main/docs/audit.md", Version: version}
	for _, rule := range audit.Rules {
		sr := sarifRule{ID: rule.ID, Name: rule.Name, ShortDescription: sarifText{rule.Summary}}
		sr.Default.Level = sarifLevel(rule.Severity)
		d.Rules = append(d.Rules, sr)
	}
	results := []sarifResult{}
	for _, f := range r.Findings {
		props := map[string]any{"evidence": f.Evidence, "remediation": f.Remediation, "severity": f.Severity.String()}
		if f.MonthlyUSD != nil {
			props["monthly_usd"] = *f.MonthlyUSD
		}
		results = append(results, sarifResult{RuleID: f.Rule, Level: sarifLevel(f.Severity),
			Message:    sarifText{f.Object + ": " + f.Message},
			Locations:  []sarifLocation{{Logical: []sarifLogical{{FullyQualifiedName: f.Object, Kind: "resource"}}}},
			Properties: props})
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: d}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// auditCSVHeader names the audit CSV's columns: one row per finding; their
// order is stable. monthly_usd is empty where the impact is not priced.
var auditCSVHeader = []string{"rule", "severity", "object", "monthly_usd", "message", "evidence", "remediation"}

func writeAuditCSV(w io.Writer, r *audit.Result) error {
	cw := csv.NewWriter(w)
	cw.Write(auditCSVHeader)
	for _, f := range r.Findings {
		usd := ""
		if f.MonthlyUSD != nil {
			usd = exact(*f.MonthlyUSD)
		}
		cw.Write([]string{f.Rule, f.Severity.String(), f.Object, usd, f.Message, strings.Join(f.Evidence, "; "), f.Remediation})
	}
	cw.Flush()
	return cw.Error()
}

// auditDoc is the audit as a document, for markdown and HTML.
func auditDoc(r *audit.Result) *doc {
	d := &doc{title: "gpuwise audit"}
	s := r.Summary
	d.linef("%d critical, %d warning, %d info; %s/month at stake where priced: %s. Source: %s.", s.Critical, s.Warning, s.Info, usdCents(s.MonthlyUSD), atStakeNote, r.Source)
	d.line("")
	d.heading("Findings")
	rows := make([][]string, 0, len(r.Findings))
	for _, f := range r.Findings {
		rows = append(rows, []string{f.Severity.String(), f.Rule, f.Object, moneyOr(f.MonthlyUSD, "-", plainUSD), f.Message, strings.Join(f.Evidence, "; "), f.Remediation})
	}
	d.table([]string{"severity", "rule", "object", "at stake $/month", "finding", "evidence", "fix"}, rows)
	if len(r.Notes) > 0 {
		d.heading("Notes")
		for _, n := range r.Notes {
			d.item(n)
		}
	}
	return d
}
