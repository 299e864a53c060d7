// Package app is gpuwise's use-case layer and composition root: one
// function per use case — Report, Audit, Inventory, Recommend, Plan,
// Advise, Breakdown, Diff, ComparePeriods, Generate* (one per artefact
// kind), Collect, Snapshot and Watch — each taking a typed request (where
// the snapshot comes from, the window, the options) and returning a result
// value, and the history's use cases on an opened store (OpenHistory;
// History.Series, History.Compare). Every front end calls these: the CLI
// turns flags into a request and renders the result; the service
// (internal/serve over internal/collector, the other use-case package,
// which runs its cycles through these same functions) turns API calls
// into the same requests, so both answer alike.
//
// It owns what every use case shares, written once: choosing and reading
// the snapshot source (a file, several clusters' files merged, Prometheus,
// the simulator, the live cluster or a snapshot held in memory;
// source.go), the one call into each adapter (prom.go, kube.go), loading
// price and policy files, preparing the snapshot (the one validation
// path), opening the history store (history.go), and classifying errors
// (Kind) so front ends map them to exit codes or HTTP statuses.
//
// Rules: time comes from App.Now, never time.Now; every function takes a
// context and honours its cancellation; nothing writes to stdout or
// stderr (results are values; files are written only where a request
// names one: a saved snapshot, collect's output, generate's directory);
// requests carry settings only, never pipeline state. It may import the
// engines, the adapters, the store (history) and the output layers
// (generate); it must not import a front end (cli, serve, render) or
// anything that reads flags or the environment (internal/archtest).
package app
