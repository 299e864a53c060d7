// Package ledger owns the savings ledger: one modelled cluster — the GPU
// nodes alive at the window's end, each priced at its monthly run-rate
// (node-hours per month × $/h from the same pricer the cost engine uses),
// with the workloads that run on them — transformed by levers applied in
// sequence (right-size CPU/memory → GPU shape → consolidate, later
// autoscale, capacity mix, commitments). Every action's saving is the drop
// in the model's cost, in integer cents, that its transformation causes on
// top of the ones before it, so the actions add up to before − after
// exactly; Reconcile refuses a ledger that does not. The ledger also ranks
// the actions (saving per effort hour, prerequisites first, phases of
// 0–30 / 31–60 / 61–90 days), prices their effort and payback, relates its
// "before" to the cost report's monthly spend, and computes the FinOps
// metrics and red flags the snapshot supports. docs/savings.md is the
// reference for every rule and default.
//
// Composition exception: the ledger is the one core package that composes
// other engines. It calls rightsize (recommendations), packing (the
// consolidation planner), cost (the report it relates to) and prices nodes
// through the pricing interfaces those engines use. No engine imports the
// ledger.
//
// Pure core: it imports cluster, usage, pricing, cost, rightsize, packing,
// gpushape and the standard library only; never adapters (kube, prom, sim,
// snapshot, trace), front ends (cli, render, generate) or the clock. Time
// comes from the snapshot's window.
package ledger
