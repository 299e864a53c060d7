// Package lever holds the savings ledger's levers and what they share:
// the Lever contract (Propose on a copy of the model, Changes whose Apply
// transforms it, never a lever's own statement of its savings), the
// modelled cluster (Model, Node, priced in integer Cents), the Action a
// change carries and its vocabulary (Level, Target, Evidence, Artefact,
// NotCounted, the action kinds and the effort table), the Env the levers
// read, Prepare (the starting model and what levers read, computed once)
// and Run (the levers applied in order, the model priced around every
// change).
//
// One file per lever (rightsize.go, shape.go, consolidate.go with the
// consolidation's planning in consolidate_actions.go, repack.go and
// burst.go, autoscale.go with autoscale_pool.go and autoscale_actions.go,
// reclaim.go, spot.go, region.go, commit.go, quantize.go), each added to
// levers in lever.go in the documented order (docs/savings.md "Adding a
// lever"). The ledger (package ledger) ranks, phases and prices the
// actions Run returns and reconciles them (Reconcile here checks the
// levers' arithmetic, to the cent).
//
// Composition exception: the levers compose rightsize (the recommendations
// the right-sizing and shape levers turn into workload changes), packing
// (the consolidation planner) and capacity (the capacity levers'
// arithmetic), all listed in internal/archtest's engineExceptions.
//
// Pure engine: it imports cluster, pricing, nodeprice, rightsize, packing,
// capacity and the standard library only; never the ledger or its FinOps
// metrics (package finops, which reads the actions), cost, adapters, the
// store, the output layers, use cases, front ends or the clock.
package lever
