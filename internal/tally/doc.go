// Package tally holds the figures the service sums per key over time:
// Values (GPU-hours and the cost engine's dollars, split as the cost
// report splits them, pods and OOM kills) and the kinds of key they are
// summed by (workload, namespace, node, GPU model). The history store
// keeps them per hour and day, the service's counters export them; both
// read this one definition.
//
// Pure core: the standard library only; no I/O, no clock.
package tally
