// Package packing is the consolidation planner: it packs GPU workloads
// (whole GPUs, MIG instances, time-slice replicas or fractional milli-GPU
// shares, with their CPU and memory) onto the fewest and cheapest nodes that
// respect every constraint — GPU model, taints and tolerations, node
// selectors, CPU, memory and pod slots, MIG placement rules, one
// time-slicing replica count per node, dev workloads never sharing a
// time-sliced node with another named class —
// and returns the result as a Plan value: nodes kept and removed per pool,
// per-GPU MIG layouts and time-slicing replicas, each workload's placement,
// the moves from the current placement, workloads that fit nowhere with the
// reason, and $/month and GPU utilization before and after.
//
// The engine (Solve) works on its own input types (Problem); FromSnapshot
// converts a cluster.Snapshot, with or without right-sizing results, at the
// boundary. Plan.Check re-verifies every invariant independently of the
// packer, and Solve refuses to return a plan that fails it.
//
// The package is pure: it may import cluster, gpushape, pricing and
// nodeprice, and no other engine: the right-sized shapes RecommendedShapes
// packs come in its own Recommendations, converted from the right-sizer's
// results by whoever composes the two (ledger.PackingRecommendations). It
// never imports adapters (kube, prom, sim, trace, snapshot) or front ends,
// and it has no clock and no I/O. It never applies a plan; package
// generate turns one into manifests.
package packing
