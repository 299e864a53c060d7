// Package ledger owns the savings ledger: one modelled cluster — the GPU
// nodes alive at the window's end, each at its monthly run-rate (node-hours
// per month × $/h from the same pricer the cost engine uses) — transformed
// by levers applied in sequence: right-size CPU/memory → GPU shape →
// consolidate (later autoscaling, capacity mix, commitments, region, idle
// reclaim, quantization, each a Lever). The model is priced in integer
// cents before and after every action, so an action's saving is exactly
// what it adds on top of the ones before it, the actions add up to before
// − after to the cent, and Reconcile refuses a ledger that does not.
//
// Money is realised where the bill shrinks: right-sized requests and MIG or
// time-slice shapes change what workloads hold, not what is bought, so
// they are prerequisites of the consolidation that turns them into nodes
// that go away; what nothing realises is listed as not counted, with the
// reason. The ledger then ranks the actions (saving per effort hour,
// prerequisites first, phases of 0–30 / 31–60 / 61–90 days), prices effort
// and payback, relates "before" to the cost report's monthly spend (the
// Bridge), and computes the FinOps metrics and red flags the data supports
// (those that need hourly series or request counters say so: Hourly and
// Counters light them up). docs/savings.md is the reference for every rule
// and default.
//
// The package is split by concept: this one is the core — Build, the
// Ledger and its Reconcile, the plan (ranking, phases, payback), the
// bridge and the summary; the levers, the model they transform and the
// actions' vocabulary are package lever (one file per lever); the FinOps
// metrics and red flags are package finops. The vocabulary a use case
// reads (Action, Cents, Metric, RedFlag, the lever names…) is named here
// too (vocab.go), so that use cases and render import the ledger alone.
//
// Composition exception: the ledger is an engine that composes other
// engines (with quota, which prices from cost; both listed in
// internal/archtest's engineExceptions). It calls its own parts, lever
// and finops, and rightsize (recommendations), packing (the
// consolidation planner), cost (allocation and report) and capacity (the
// replicas GPU services need hour by hour), all pricing nodes through the
// same pricing.Pricer. No engine imports the ledger.
//
// Pure engine: it imports cluster, pricing, nodeprice, cost, rightsize,
// packing, capacity, its parts (ledger/lever, ledger/finops) and the
// standard library only; never adapters (kube,
// prom, sim, snapshot, trace), the store (history), the output layers
// (generate, exporter), use cases (app, collector), front ends (cli,
// render, serve) or the clock: time comes from the snapshot's window.
package ledger
