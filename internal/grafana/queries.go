package grafana

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Query is one PromQL expression of the dashboard and where it is.
type Query struct {
	// Where names the panel ("panel Cost per namespace") or variable.
	Where string
	Expr  string
}

// Queries lists every panel target's and query variable's PromQL in a
// dashboard JSON, in order.
func Queries(raw []byte) ([]Query, error) {
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("reading the dashboard: %w", err)
	}
	var out []Query
	for _, v := range d.Templating.List {
		if q, ok := v.Query.(string); ok && v.Type == "query" {
			out = append(out, Query{Where: "variable " + v.Name, Expr: q})
		}
	}
	for _, p := range d.Panels {
		for _, t := range p.Targets {
			out = append(out, Query{Where: "panel " + p.Title, Expr: t.Expr})
		}
	}
	return out, nil
}

// Substitute fills the dashboard's variables and Grafana's range macros so
// that a query runs as a plain PromQL instant query: every cluster and
// namespace, and the given range for $__range and $__rate_interval.
func Substitute(expr, rng string) string {
	return strings.NewReplacer(`"$cluster"`, `".*"`, `"$namespace"`, `".*"`,
		"$__rate_interval", rng, "$__range", rng).Replace(expr)
}

// LabelValues turns a label_values(selector, label) variable query into
// the selector it reads, so it can run as a query.
func LabelValues(expr string) (selector string, ok bool) {
	inner, found := strings.CutPrefix(expr, "label_values(")
	if !found {
		return "", false
	}
	i := strings.LastIndex(inner, ",")
	if i < 0 {
		return "", false
	}
	return strings.TrimSpace(inner[:i]), true
}
