// Package rightsize recommends CPU and memory requests per container and a
// GPU shape per workload (keep whole, a MIG profile, a time-slice share, a
// cheaper GPU model) from the usage in a snapshot. Every recommendation
// carries its evidence, a confidence and its $/month; too little data
// gives no recommendation and says why. It never applies anything.
// Decision rules and formulas: docs/recommendations.md.
//
// Pure core: it imports cluster, usage, pricing, nodeprice and gpushape and
// the standard library only — no other engine; no I/O, no clock.
package rightsize
