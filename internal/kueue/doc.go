// Package kueue reports Kueue's GPU queues over the window: per
// ClusterQueue its nominal GPU quota against the GPUs it used and
// borrowed, the GPU-hours its workloads were admitted for against the
// GPU-hours their pods were active (the idle inside admitted workloads:
// "waste"), and the GPU demand that waited and how long ("starved"),
// side by side. It also sizes the ClusterQueues `gpuwise generate kueue`
// writes (sizing.go): a nominal quota per team from measured need.
//
// The pods' GPU-hours and dollars are the cost engine's, handed in by the
// use case (PodCost), never priced here. Pure core: it imports cluster
// and the standard library only — no other engine, no I/O, no clock.
package kueue
