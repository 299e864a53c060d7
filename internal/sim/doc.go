// Package sim owns the simulated cluster: a deterministic, seeded generator
// of a Kubernetes GPU cluster and its usage over a window, returned as a
// cluster.Snapshot. It is the embedded default for `gpuwise demo`, the input
// of benchmarks, and a source of realistic fixtures for tests.
//
// # What one scale unit holds
//
// Config.Scale counts "cells". Each cell is the demo cluster: 17 GPU nodes
// with 96 physical GPUs (GPUsPerScale) and one CPU-only system node, running
// about 560 pods over a 7-day window (360 of them short CronJob runs). Cell 0
// keeps plain names; cell k > 0 prefixes node and workload names with "c<k>-".
// So Scale 1 ≈ 100 GPUs, Scale 10 ≈ 1k, Scale 104 ≈ 10k.
//
// A cell reproduces what real GPU clusters show: bursty multi-node training
// on H100 (on-demand and spot), diurnal inference, notebooks idle for hours
// on whole GPUs, small inference holding a whole H100, CronJob batch runs
// that start and end inside the window, non-GPU pods on untainted GPU nodes,
// gpu-operator DaemonSets on every GPU node, an A100 node with mixed-strategy
// MIG layouts, a time-sliced L4 dev node, an on-prem node the price catalog
// does not know, and a node whose dcgm-exporter is down (its GPU pods are
// unmeasured). Instance types, vCPU and memory come from the AWS and Azure
// rows of the price catalog (us-east-1 and eastus).
//
// # Determinism
//
// The same Config gives the same snapshot, byte for byte once encoded: each
// cell draws from its own math/rand/v2 PCG seeded from (Config.Seed, cell),
// per-sample noise comes from splitmix64 streams seeded from that PCG, no map
// is iterated and the clock is never read. Cells are generated in parallel
// and assembled in order.
//
// # Usage samples
//
// Usage is streamed one sample per Config.Step into the usage accumulators,
// each sample covering Step seconds (the last one of a pod's life covers the
// remainder), only over the part of a pod's life inside the window: GPU
// activity (DCGM_FI_PROF_GR_ENGINE_ACTIVE, relative to the unit), SM_ACTIVE
// at 0.5–0.8 of it, framebuffer MiB, and per container CPU cores and
// memory working-set bytes.
//
// # Metrics
//
// WriteOpenMetrics writes the same simulation as dcgm-exporter, cAdvisor and
// kube-state-metrics history (OpenMetrics, for `promtool tsdb
// create-blocks-from openmetrics`) and returns the snapshot as ground truth;
// Exposition and Handler serve the latest values on a /metrics endpoint.
// The exporter sees every sample as it is generated and draws no random
// numbers, so the snapshot stays byte for byte Generate's.
//
// It is an adapter: it may import core packages (cluster, usage), never the
// reverse.
package sim
