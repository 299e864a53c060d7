// Package finops computes the savings ledger's FinOps metrics (GPU
// utilization, idle and unallocated shares, GPUs below 30% for 6 hours,
// spot share of training, cost per inference) and red flags (unused MIG
// slices, hostage nodes, OOM kills rising), each graded against the
// target docs/savings.md documents, unavailable with the reason when the
// data it needs is missing (never zero): hour-by-hour signals and request
// counters come through the Hourly and Counters ports (SnapshotSignals
// reads them from a snapshot's hourly series). A red flag names the
// ledger actions that recover what it points at; its dollars are at
// stake, never added to the ledger's saving.
//
// Composition exception: it reads cost (the allocation and report of the
// same snapshot and prices) and the levers' actions (package lever), both
// listed in internal/archtest's engineExceptions.
//
// Pure engine: it imports cluster, cost, ledger/lever and the standard
// library only; never the ledger itself (which calls it), packing,
// rightsize, adapters, the store, the output layers, use cases, front ends
// or the clock.
package finops
