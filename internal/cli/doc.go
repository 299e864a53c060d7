// Package cli owns the gpuwise command line: flags, help text and exit
// codes. Each command turns its flags into an app request, calls the use
// case (package app) and renders the result (package render); it computes
// nothing itself. Flags are parsed only here; errors are mapped to the
// documented exit codes from app's error kinds. It reaches sources and the
// history store only through app (report --compare --history calls
// app.History, as the service's /api/v1/compare does) and runs engines
// only through app's use cases, naming their settings by app's names
// (app.CostOptions, app.IdleShare, app.Shapes, app.Severity, …: frontend.go)
// in requests; `serve` builds serve.Options and runs the service. It
// imports app, render, progress and serve only: internal/archtest refuses
// an import of an adapter, a store or an engine here.
package cli
