// Package trace replays public GPU traces (the data sets under
// ../shared/data) into cluster snapshots, so that the engines can be tested
// and benchmarked on real usage rather than simulated usage.
//
// It is an adapter for tests, benchmarks and the gpuwise-lab binary only:
// the shipped gpuwise binary never imports it. It may import core packages
// (cluster, usage); core packages must not import it.
//
// # GenAI-2026
//
// ReadGenAI reads the Alibaba cluster-trace-v2026-GenAI pod metrics:
// pod_gpu_duty_cycle.csv.gz (GPU duty cycle in percent, treated like
// DCGM_FI_DEV_GPU_UTIL) and pod_gpu_memory_used_bytes.csv.gz (treated like
// DCGM_FI_DEV_FB_USED). Files are streamed twice, never held as rows: the
// first pass finds every pod's first and last sample and the median
// sampling step; the second feeds usage accumulators, with O(pods) state.
//
// Each sample stands for the gap to its pod's next sample, capped at twice
// the median step, so that a longer gap stays unmeasured instead of being
// filled with a stale value; a pod's last sample stands for one step. A pod
// holds its GPU from its first sample until one step after its last. The
// trace names no nodes, so pods are placed, in order of appearance, on
// nodes of one priced instance type (GenAIOptions); the snapshot's Notes
// state every such assumption.
//
// # openb
//
// ReadOpenBNodes and ReadOpenBPods read the Alibaba cluster-trace-gpu-v2023
// ("openb") CSVs, reporting every malformed row by line and column (up to
// ten). Pod lists come in two shapes, both accepted: the 11-column default
// (name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
// pod_phase, creation_time, deletion_time, scheduled_time) and the
// 5-column variants (name through gpu_milli; openb_pod_list_multigpu50.csv
// and others). Missing columns take the FGD simulator's defaults: no GPU
// model constraint, and no QoS, phase or times (the simulator reads none);
// OpenBPod.Lifecycle tells the shapes apart.
package trace
