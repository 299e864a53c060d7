// Package capacity owns the capacity levers' arithmetic: how many replicas
// a GPU service needs hour by hour at a target activity (autoscaling), and
// the GPU-hours that frees once scale-down stabilization and GPU pod
// start-up are paid for. Each lever is a pure function of the snapshot and
// its policy that returns values — what to scale, on which signal, with
// the evidence — and never applies anything. The savings ledger turns these
// values into node-hours and money; `gpuwise generate` turns them into
// KEDA ScaledObjects, HPAs and Karpenter NodePools.
//
// Files per lever: policy.go (the autoscaling policy, defaults and
// Validate, each problem naming its field), autoscale.go (replicas needed
// per hour), signal.go (which metric a scaler reads, best first: queue
// depth, request rate, GPU activity), reclaim.go (idle stretches of
// notebooks and dev boxes), spot.go (spot candidates, interruption rates,
// expected rework), commit.go (the commitment level that saves most),
// quantize.go (services that fit a MIG slice at a native lower precision:
// an upper bound that needs a quality test).
// docs/capacity.md documents every rule and default.
//
// Pure core: it imports cluster, gpushape and the standard library only; never
// another engine, an adapter (kube, prom, sim, snapshot, trace), a front
// end (cli, render, generate, app) or the clock.
package capacity
