package prom

import (
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// knownLabels are node and pod label keys gpuwise reads, by the name
// kube-state-metrics gives them (label_ + the key with every character
// outside [a-zA-Z0-9_] turned into _). Other keys stay sanitized.
var knownLabels = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch",
		"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type",
		"topology.kubernetes.io/region", "topology.kubernetes.io/zone",
		"karpenter.sh/capacity-type", "karpenter.sh/nodepool", "eks.amazonaws.com/capacityType",
		"kubernetes.azure.com/scalesetpriority", "cloud.google.com/gke-spot",
		"nvidia.com/gpu.present", "nvidia.com/gpu.product", "nvidia.com/gpu.count",
		"nvidia.com/gpu.memory", "nvidia.com/gpu.replicas", "nvidia.com/gpu.sharing-strategy",
		"nvidia.com/device-plugin.config", "nvidia.com/mig.capable", "nvidia.com/mig.strategy",
		"nvidia.com/mig.config", "nvidia.com/mig.config.state",
		cluster.LabelAMDProduct, cluster.LabelAMDVRAM,
		"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component",
		"app", "team", "pod-template-hash", "controller-revision-hash",
		cluster.CheckpointHint,
	} {
		m["label_"+sanitize(k)] = k
	}
	return m
}()

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// objectLabels turns kube_*_labels series labels back into object labels.
func objectLabels(series wire.Labels) map[string]string {
	var out map[string]string
	for _, p := range series {
		out = addObjectLabel(out, p.Name, p.Value)
	}
	return out
}

func addObjectLabel(out map[string]string, k, v string) map[string]string {
	if !strings.HasPrefix(k, "label_") || v == "" {
		return out
	}
	key, ok := knownLabels[k]
	if !ok {
		key = strings.TrimPrefix(k, "label_")
	}
	if out == nil {
		out = map[string]string{}
	}
	out[key] = v
	return out
}

// podAnnotations turns a kube_pod_annotations series' labels back into
// the annotations gpuwise reads (the checkpoint hint); others are left out.
func podAnnotations(series wire.Labels) map[string]string {
	v := series.Get("annotation_" + sanitize(cluster.CheckpointHint))
	if v == "" {
		return nil
	}
	return map[string]string{cluster.CheckpointHint: v}
}

// resourceName turns a kube-state-metrics resource label back into the
// extended resource name: nvidia_com_gpu → nvidia.com/gpu,
// nvidia_com_gpu_shared → nvidia.com/gpu.shared, nvidia_com_mig_3g_40gb →
// nvidia.com/mig-3g.40gb. Names already in API form pass through.
func resourceName(r string) string {
	if name, ok := acceleratorResources[r]; ok {
		return name
	}
	switch {
	case strings.Contains(r, "/"):
		return r
	case r == "nvidia_com_gpu":
		return "nvidia.com/gpu"
	case strings.HasPrefix(r, "nvidia_com_gpu_"):
		return "nvidia.com/gpu." + strings.TrimPrefix(r, "nvidia_com_gpu_")
	case strings.HasPrefix(r, "nvidia_com_mig_"):
		return "nvidia.com/mig-" + strings.Replace(strings.TrimPrefix(r, "nvidia_com_mig_"), "_", ".", 1)
	case strings.HasPrefix(r, "nvidia_com_"):
		return "nvidia.com/" + strings.TrimPrefix(r, "nvidia_com_")
	}
	return r
}

// acceleratorResources are the other vendors' resources by the name
// kube-state-metrics gives them (amd_com_gpu → amd.com/gpu).
var acceleratorResources = func() map[string]string {
	m := map[string]string{}
	for _, r := range cluster.AcceleratorResources {
		m[sanitize(r)] = r
	}
	return m
}()

// first returns the first non-empty value among keys: exporters spell the
// same label differently (Hostname and hostname, pod and pod_name).
func first(l map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := l[k]; v != "" {
			return v
		}
	}
	return ""
}
