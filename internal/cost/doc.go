// Package cost owns cost allocation as docs/architecture.md and DESIGN.md
// define it: who held which GPU unit for how long, allocated against active
// GPU-hours, idle and unallocated GPU-hours, and per pod the separate dollar
// lines active, allocated-but-idle, unmeasured, unallocated share, CPU and
// memory; then idle sharing (none, node, cluster), aggregation by any key and
// the FinOps totals.
//
// Every report reconciles: the sum of all rows' cost equals the priced nodes'
// cost for the window, to the cent. Pure core: it imports cluster, usage,
// pricing and nodeprice only — no other engine — and never reads the clock.
package cost
