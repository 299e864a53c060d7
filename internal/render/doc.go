// Package render owns how every command's result looks to people and
// machines: the cost report, the audit, the recommendations and the
// consolidation plan, each in one set of formats — table (the terminal
// view), wide (the table uncut), json and yaml (stable, machine-read),
// csv, markdown (for pull requests and wikis), html (one self-contained
// page) — and sarif for the audit. ParseFormat is the one place an -o
// value is checked; write (output.go) is the one dispatch, and fits the
// table to Options.Width when a terminal is set: the report drops its
// least important columns, long text wraps under its column, what still
// does not fit is cut with "…", and the output says so.
//
// The human formats come from one document model: a command builds its
// result as a doc (document.go) and the doc's writers write the table,
// markdown and HTML (document_text.go, document_markdown.go,
// document_html.go); every dollar figure is formatted in money.go.
//
// It only formats: numbers are rounded for display here and nowhere else,
// and it never computes or changes a result. It reads the engines' result
// values (cost, audit, rightsize, packing) and writes to an io.Writer; it
// must not import adapters (kube, prom, sim) or app, read flags or the
// environment, or detect a terminal itself: callers pass Options (colour,
// width) decided at the composition root.
package render
