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
// # Idle causes, serving, interruptions
//
// Every idle cause of issue 17 is built in, so that the idle-cause
// engine's answer is known by construction: the CronJob risk-score runs
// pinned at its CPU limit and CFS-throttled in 35–65% of its periods
// (CPU-starved), feature-backfill streams ~17 GB/s over PCIe at 3–9%
// activity (input-bound), ocr-batch's working set sits at 92–100% of its
// limit and is OOM-killed every 40 minutes (memory-pressured); notebooks,
// dev boxes and inference at night idle for lack of work. The inference
// services expose vLLM (chat-llm, summarize-llm, llm-7b-chat) or Triton
// (embed-api, ocr-vision, asr-whisper, fraud-scorer) request, token and
// queue counters in proportion to their diurnal load: asr-whisper's four
// replicas need one in the quietest hour and four in the busiest. The
// spot node train-h100-3 is reclaimed (Node.EndReason spot-interruption)
// with its job; one job of the second spot lane is evicted (Evicted);
// training pods carry the checkpoint hint (cluster.CheckpointHint: 30m on
// spot Jobs, 1h on PyTorchJobs). The serving fleets on on-demand nodes
// run 24×7: the steady baseline commitments are sized on. These signals
// draw from a per-pod stream seeded from the pod's UID, so adding them
// left every other number of the demo as it was.
//
// # Usage samples
//
// Usage is streamed one sample per Config.Step into the usage accumulators,
// each sample covering Step seconds (the last one of a pod's life covers the
// remainder), only over the part of a pod's life inside the window: GPU
// activity (DCGM_FI_PROF_GR_ENGINE_ACTIVE, relative to the unit), SM_ACTIVE
// at 0.5–0.8 of it, framebuffer MiB, and per container CPU cores and
// memory working-set bytes. The same samples feed the workloads' hourly
// series (cluster.HourlyBuilder), with PCIe and NVLink receive per whole
// GPU, CFS periods of CPU-limited containers, OOM kills and the servers'
// counters; Step is at most an hour.
//
// # Metrics
//
// WriteOpenMetrics writes the same simulation as dcgm-exporter, cAdvisor,
// kube-state-metrics, vLLM and Triton history in their metric names and
// label sets (OpenMetrics, for `promtool tsdb
// create-blocks-from openmetrics`) and returns the snapshot as ground truth;
// Exposition and Handler serve the latest values on a /metrics endpoint.
// The exporter sees every sample as it is generated and draws no random
// numbers, so the snapshot stays byte for byte Generate's.
//
// It is an adapter: it may import core packages (cluster, usage), never the
// reverse.
package sim
