package kube

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Well-known node labels read for placement and pricing.
const (
	labelRegion       = "topology.kubernetes.io/region"
	labelZone         = "topology.kubernetes.io/zone"
	labelRegionBeta   = "failure-domain.beta.kubernetes.io/region"
	labelZoneBeta     = "failure-domain.beta.kubernetes.io/zone"
	labelInstance     = "node.kubernetes.io/instance-type"
	labelInstanceBeta = "beta.kubernetes.io/instance-type"
	labelKarpenterCap = "karpenter.sh/capacity-type"
	labelEKSCap       = "eks.amazonaws.com/capacityType"
	labelAzurePrio    = "kubernetes.azure.com/scalesetpriority"
	labelGKESpot      = "cloud.google.com/gke-spot"
	labelGKEPreempt   = "cloud.google.com/gke-preemptible"
)

// convertNode maps a node's metadata, capacity and GPUs; problems with
// its labels or resources come back as notes naming the node. pools maps
// each GPU resource name to the IDs of the units advertised under it.
func convertNode(n *corev1.Node) (out cluster.Node, pools map[string][]string, notes []string) {
	out = cluster.Node{
		Name:         n.Name,
		Labels:       n.Labels,
		Cloud:        cloudOf(n.Spec.ProviderID, n.Labels),
		Region:       first(n.Labels, labelRegion, labelRegionBeta),
		Zone:         first(n.Labels, labelZone, labelZoneBeta),
		InstanceType: first(n.Labels, labelInstance, labelInstanceBeta),
		Capacity:     capacityOf(n.Labels),
		Created:      n.CreationTimestamp.Time,
		ProviderID:   n.Spec.ProviderID,
	}
	for _, t := range n.Spec.Taints {
		out.Taints = append(out.Taints, cluster.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
	}
	res := resourcesOf(n)
	if q, ok := res[corev1.ResourceCPU]; ok {
		out.CPUMilli = max(q.MilliValue(), 0)
	}
	if q, ok := res[corev1.ResourceMemory]; ok {
		out.MemoryBytes = max(q.Value(), 0)
	}
	if q, ok := res[corev1.ResourcePods]; ok {
		out.Pods = int(max(q.Value(), 0))
	}
	pools, notes = addGPUs(&out, n.Annotations, res)
	return out, pools, notes
}

// resourcesOf prefers allocatable (what pods can get) and falls back to
// capacity for nodes whose status has no allocatable yet.
func resourcesOf(n *corev1.Node) corev1.ResourceList {
	if len(n.Status.Allocatable) > 0 {
		return n.Status.Allocatable
	}
	return n.Status.Capacity
}

func first(labels map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(labels[k]); v != "" {
			return v
		}
	}
	return ""
}

// cloudOf reads the cloud from spec.providerID ("aws:///us-east-1a/i-…",
// "azure:///subscriptions/…", "gce://project/zone/name"), falling back to
// provider-specific labels.
func cloudOf(providerID string, labels map[string]string) string {
	scheme, _, ok := strings.Cut(providerID, "://")
	if ok {
		switch scheme {
		case "aws":
			return "aws"
		case "azure":
			return "azure"
		case "gce":
			return "gcp"
		}
	}
	switch {
	case labels[labelEKSCap] != "" || labels["eks.amazonaws.com/nodegroup"] != "":
		return "aws"
	case labels[labelAzurePrio] != "" || labels["kubernetes.azure.com/cluster"] != "":
		return "azure"
	case labels["cloud.google.com/gke-nodepool"] != "":
		return "gcp"
	}
	return ""
}

// capacityOf reads how the node is bought from Karpenter's label or the
// managed services' own spot labels; "" when nothing says.
func capacityOf(labels map[string]string) string {
	switch strings.ToLower(labels[labelKarpenterCap]) {
	case "spot":
		return cluster.Spot
	case "on-demand":
		return cluster.OnDemand
	case "reserved":
		return cluster.Reserved
	}
	switch strings.ToUpper(labels[labelEKSCap]) {
	case "SPOT":
		return cluster.Spot
	case "ON_DEMAND":
		return cluster.OnDemand
	}
	if strings.EqualFold(labels[labelAzurePrio], "spot") ||
		labels[labelGKESpot] == "true" || labels[labelGKEPreempt] == "true" {
		return cluster.Spot
	}
	if labels[labelAzurePrio] != "" || labels["cloud.google.com/gke-nodepool"] != "" {
		return cluster.OnDemand
	}
	return ""
}
