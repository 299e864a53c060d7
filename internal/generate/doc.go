// Package generate owns the artefacts gpuwise writes for a platform engineer
// to review and apply: strategic-merge resource patches per workload,
// VerticalPodAutoscaler objects in recommendation-only mode, NVIDIA
// device-plugin time-slicing configs and mig-parted MIG layouts (each as a
// ConfigMap plus a commands file with the ClusterPolicy patch and the node
// labels), admission policies built by internal/policy (policy.go: YAML in
// the builder's field order, native objects re-read into the upstream
// admissionregistration/v1 types, plus rollout.sh) and per-namespace GPU
// ResourceQuotas sized by internal/quota (quota.go). It never applies anything and never talks to a cluster.
//
// Inputs are the plain values in types.go. recommended.go turns
// right-sizing results (rightsize.Result) into them and planned.go a
// consolidation plan (packing.Plan); `generate mig` writes the plan's MIG
// layouts (PlanMIG), so it and `generate plan` never disagree about a node. Each generator validates its whole
// input first and returns every problem, naming the object, joined into one
// error; output is deterministic (maps sorted, input order kept elsewhere).
// Generated device-plugin and mig-parted configs are re-read through strict
// mirrors of the upstream schemas (schema_deviceplugin.go,
// schema_migparted.go) before they are returned, because neither upstream
// module is available to import.
//
// Every generator returns []File (path → bytes). Callers render them with
// WriteStream (one multi-document YAML stream on stdout, each document
// preceded by a "# file: PATH" comment; shell command files are written as
// comments so the stream stays valid YAML) or WriteDir (one file per path
// under a directory, so the "kubectl … -f PATH" commands in the headers work
// from that directory).
//
// rollout.go stages resource patches in waves (Stage: safest first, a
// share of the workloads per wave, the savings ledger's cents split among
// them exactly), rollout_files.go writes rollout/waves.md and each wave's
// apply.sh, check.sh (read-only) and rollback.sh (the snapshot's values),
// and rollout_recs.go builds the stages from right-sizing results.
//
// capacity.go, autoscaling.go, hpa.go, nodepool.go and spot.go write the
// capacity levers' artefacts: KEDA ScaledObjects or autoscaling/v2 HPAs for
// GPU services, Karpenter NodePools per GPU model, and spot placements;
// their tests decode them strictly into the upstream KEDA, k8s.io/api and
// Karpenter types (test-only dependencies).
//
// It may import k8s.io/api, k8s.io/apimachinery, sigs.k8s.io/yaml and the
// core packages cluster, gpushape (MIG layout validity), rightsize,
// packing, policy, quota and capacity (whose results it converts), and
// go.yaml.in/yaml/v3 (ordered YAML); it must not import client-go,
// adapters (kube, prom, sim), or read flags or the environment.
package generate
