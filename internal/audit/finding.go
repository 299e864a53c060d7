package audit

import (
	"fmt"
	"strings"
)

// Severity ranks a finding; higher is worse.
type Severity int

// Severities, in increasing order.
const (
	Info Severity = iota + 1
	Warning
	Critical
)

var severityNames = map[Severity]string{Info: "info", Warning: "warning", Critical: "critical"}

func (s Severity) String() string { return severityNames[s] }

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// ParseSeverity reads "info", "warning" or "critical".
func ParseSeverity(s string) (Severity, error) {
	for v, name := range severityNames {
		if strings.EqualFold(s, name) {
			return v, nil
		}
	}
	return 0, fmt.Errorf("severity %q is not one of info, warning, critical", s)
}

// Finding is one hygiene fault and its fix.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Object names what is wrong: "node/gpu-1", "Deployment ml/train".
	Object   string   `json:"object"`
	Message  string   `json:"message"`
	Evidence []string `json:"evidence"`
	// MonthlyUSD is the money at stake per month (730 h); nil when the
	// rule or the node cannot be priced.
	MonthlyUSD *float64 `json:"monthly_usd,omitempty"`
	// Remediation is a kubectl command or a YAML patch.
	Remediation string `json:"remediation"`
}

// Summary counts findings by severity and totals the priced impact.
type Summary struct {
	Critical   int     `json:"critical"`
	Warning    int     `json:"warning"`
	Info       int     `json:"info"`
	MonthlyUSD float64 `json:"monthly_usd"`
}

// Result is an audit's output.
type Result struct {
	Source   string    `json:"source"`
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
	// Notes carry the snapshot's data-quality notes and unpriced nodes.
	Notes []string `json:"notes,omitempty"`
	// Undecided are rules the source's facts could not decide
	// (Snapshot.Unknown): unknown, neither findings nor passes.
	Undecided []Undecided `json:"undecided,omitempty"`
	// Page, set by InNamespace, says which findings the answer keeps.
	Page *Page `json:"page,omitempty"`
}

// Page is the part of an audit's findings an answer keeps: those on a
// namespace's objects, how many and their priced dollars a month.
type Page struct {
	Namespace  string  `json:"namespace"`
	Findings   int     `json:"findings"`
	MonthlyUSD float64 `json:"monthly_usd"`
}

// Namespace is the namespace of the finding's object ("Deployment ml/train":
// ml), "" for a cluster-scoped one ("node/gpu-1").
func (f Finding) Namespace() string {
	_, obj, ok := strings.Cut(f.Object, " ")
	if !ok {
		return ""
	}
	ns, _, ok := strings.Cut(obj, "/")
	if !ok {
		return ""
	}
	return ns
}

// InNamespace is r with the findings on objects of namespace ns only, in
// r's order; the summary, notes and undecided rules stay the whole
// audit's, and Page counts and prices the findings kept. r is unchanged.
func (r *Result) InNamespace(ns string) *Result {
	out := *r
	out.Findings = []Finding{}
	for _, f := range r.Findings {
		if f.Namespace() == ns {
			out.Findings = append(out.Findings, f)
		}
	}
	out.Page = &Page{Namespace: ns, Findings: len(out.Findings), MonthlyUSD: summarize(out.Findings).MonthlyUSD}
	return &out
}

// Worst returns the highest severity among the findings, 0 when none.
func (r *Result) Worst() Severity {
	var w Severity
	for _, f := range r.Findings {
		w = max(w, f.Severity)
	}
	return w
}

func summarize(fs []Finding) Summary {
	var s Summary
	for _, f := range fs {
		switch f.Severity {
		case Critical:
			s.Critical++
		case Warning:
			s.Warning++
		case Info:
			s.Info++
		}
		if f.MonthlyUSD != nil {
			s.MonthlyUSD += *f.MonthlyUSD
		}
	}
	return s
}
