// Package kueue reports Kueue's GPU queues over the window: per
// ClusterQueue its nominal GPU quota against the GPUs it used and
// borrowed, the GPU-hours its workloads were admitted for against the
// GPU-hours their pods were active (the idle inside admitted workloads:
// "waste"), and the GPU demand that waited and how long ("starved"),
// side by side. It also sizes the ClusterQueues `gpuwise generate kueue`
// writes (sizing.go): a nominal quota per team from measured need.
//
// The pods' GPU-hours and dollars are the cost engine's, handed in by the
// use case (PodCost), never priced here; the sizing is quota's rule
// (quota.Series: the time-weighted percentile of units requested at
// once, plus headroom), the documented engine exception. Pure core: it
// imports cluster, gpurule, quota and the standard library only — no
// I/O, no clock; it states no dollars of its own (the pooling's money is
// the ledger's queue lever).
package kueue
