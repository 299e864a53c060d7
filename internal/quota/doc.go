// Package quota sizes a per-namespace ResourceQuota for GPU resources —
// whole GPUs, MIG instances and shared (time-sliced) GPUs, each its own
// requests.<resource> counter — from measured need: the time-weighted p95
// of the units the namespace's pods requested at once over the window,
// plus headroom. It prices what each quota caps at the namespace's own mean
// $/unit-hour, taken from the cost engine's allocation (never priced a
// second way), and says where a namespace's peak exceeds its quota.
//
// The series comes from pod lifetimes in the snapshot (a pod requests its
// units from start to end, pending pods included, as ResourceQuota counts
// them). Pure core: it imports cluster and cost (whose Allocation it reads:
// a documented engine exception) and the standard library only; it never
// reads the clock or writes anything.
package quota
