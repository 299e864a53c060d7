// Package app is gpuwise's use-case layer and composition root: one
// function per use case — Report, Audit, Inventory, Recommend, Plan, Generate (one
// per artefact kind) and Collect — each taking a typed request (where the
// snapshot comes from, the window, the options) and returning a result
// model. Every front end calls these functions: the CLI turns flags into a
// request and renders the result; the coming service (`gpuwise serve`) and
// advisor will turn API calls into the same requests.
//
// It owns what every use case shares, written once: choosing and reading
// the snapshot source (a file, Prometheus, the simulator or the live
// cluster; source.go), the one call into each adapter (prom.go, kube.go),
// loading price and policy files, preparing the snapshot (the one
// validation path), and classifying errors (Kind) so front ends map them
// to exit codes or HTTP statuses.
//
// Rules: time comes from App.Now, never time.Now; every function takes a
// context and honours its cancellation; nothing writes to stdout or
// stderr (results are values; files are written only where a request
// names one: a saved snapshot, collect's output, generate's directory);
// requests carry settings only, never pipeline state. It may import the
// engines, the adapters and generate; it must not import cli, render or
// anything that reads flags or the environment.
package app
