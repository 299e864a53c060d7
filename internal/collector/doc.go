// Package collector is the service's use case: the cycle behind `gpuwise
// serve`. Each cycle keeps the inventory current (an Inventory port: kube's
// shared informers, the inventory inferred from Prometheus reads by
// rolling.Seen, or the demo's fixed one), reads the usage of the intervals
// not read yet (a UsageReader port: one Prometheus interval through
// app.Snapshot) into the rolling ring, records each interval's cost in the
// history (app.History's store) and the counters, rebuilds the window and
// runs the default use cases on it, then publishes the State atomically:
// the last good result, marked partial when a source fails and stale when
// a cycle could not rebuild, never replaced by zeros. It owns the service's
// own metrics (cycles, their duration, intervals read, build info, the
// history's connection pool) and the domain metrics' frame
// (internal/exporter), published with the state.
//
// It knows no HTTP: internal/serve answers requests over a Collector's
// State and History. It reaches sources only through app (Watch, Snapshot,
// DemoSpansIn) and the engines only through app's use cases; the clock is
// the App's (the wall clock only times a cycle for its duration metric). It
// must not import serve, cli or render.
package collector
