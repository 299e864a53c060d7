// Package cluster owns the snapshot model that every engine computes on:
// nodes, physical GPUs, the GPU units carved from them (whole GPU, MIG
// instance, time-slice replica), pods with containers, requests and limits,
// their top-level owners, and the time window the snapshot covers; its
// time axis (Hourly: hour-by-hour series per GPU workload; the
// HourlyBuilder every source fills them with; HourSums, a builder's raw
// sums, which merge exactly across intervals for the service's window);
// interruptions and checkpoint hints; Prepare, the one validation path,
// whose Prepared (snapshot and index) every engine takes; and the request
// heuristics engines share (round-number requests, namespace globs).
//
// It is pure core: standard library and the usage package only. It must not
// import Kubernetes, Prometheus, HTTP or CLI packages, and it never reads the
// clock: time is data carried in the snapshot.
package cluster
