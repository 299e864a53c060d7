package cluster

import (
	"slices"
	"sort"
)

// Controls are the objects that steer the cluster's workloads and nodes
// from outside them: autoscalers (HorizontalPodAutoscalers, KEDA
// ScaledObjects, VerticalPodAutoscalers), Karpenter NodePools and the
// admission policies in force (ValidatingAdmissionPolicies and their
// bindings, Kyverno ValidatingPolicies and ClusterPolicies). Only the
// fields detection reads are kept. Read names the resources the source
// listed ("horizontalpodautoscalers.autoscaling"): a kind whose resource
// is not there was not served or not readable (Snapshot.Partial says
// which), so its absence from the lists says nothing.
type Controls struct {
	Read []string `json:"read"`
	// NotServed are the resources the API does not serve (their CRD is
	// not installed): none of them exists, which is known, unlike a
	// resource whose listing was forbidden (in neither list).
	NotServed   []string           `json:"not_served,omitempty"`
	Autoscalers []Autoscaler       `json:"autoscalers,omitempty"`
	NodePools   []NodePool         `json:"node_pools,omitempty"`
	Policies    []AdmissionPolicy  `json:"admission_policies,omitempty"`
	Bindings    []AdmissionBinding `json:"admission_bindings,omitempty"`
}

// The resources Controls.Read names.
const (
	ResourceHPA            = "horizontalpodautoscalers.autoscaling"
	ResourceScaledObject   = "scaledobjects.keda.sh"
	ResourceVPA            = "verticalpodautoscalers.autoscaling.k8s.io"
	ResourceNodePool       = "nodepools.karpenter.sh"
	ResourceVAP            = "validatingadmissionpolicies.admissionregistration.k8s.io"
	ResourceVAPBinding     = "validatingadmissionpolicybindings.admissionregistration.k8s.io"
	ResourceKyvernoVPol    = "validatingpolicies.policies.kyverno.io"
	ResourceKyvernoCluster = "clusterpolicies.kyverno.io"
)

// Autoscaler kinds (Autoscaler.Kind).
const (
	KindHPA          = "HorizontalPodAutoscaler"
	KindScaledObject = "ScaledObject"
	KindVPA          = "VerticalPodAutoscaler"
)

// Autoscaler is one HPA (autoscaling/v2), KEDA ScaledObject
// (keda.sh/v1alpha1) or VPA (autoscaling.k8s.io/v1) and the workload it
// targets (scaleTargetRef, or the VPA's targetRef).
type Autoscaler struct {
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	TargetKind string `json:"target_kind"`
	TargetName string `json:"target_name"`
	// MinReplicas and MaxReplicas are the HPA's minReplicas (default 1)
	// and maxReplicas, the ScaledObject's minReplicaCount (default 0) and
	// maxReplicaCount (default 100); 0 for a VPA.
	MinReplicas int `json:"min_replicas,omitempty"`
	MaxReplicas int `json:"max_replicas,omitempty"`
	// Mode is a VPA's updatePolicy.updateMode ("Off", "Initial",
	// "Recreate", "InPlaceOrRecreate"; "" when unset: the VPA's default)
	// and "paused" for a ScaledObject with the
	// autoscaling.keda.sh/paused annotation "true".
	Mode string `json:"mode,omitempty"`
	// Metrics are the HPA's metric types (Resource, External, …) or the
	// ScaledObject's trigger types (prometheus, cpu, …), in spec order.
	Metrics []string `json:"metrics,omitempty"`
}

// Workload is the key of the workload the autoscaler targets, as
// Pod.WorkloadKey writes it ("namespace/Kind/name").
func (a *Autoscaler) Workload() string { return a.Namespace + "/" + a.TargetKind + "/" + a.TargetName }

// NodePool is a Karpenter NodePool (karpenter.sh/v1): the instance types
// and capacity types its requirements allow (operator In; empty: not
// constrained), its template's labels and taints and its consolidation.
type NodePool struct {
	Name          string            `json:"name"`
	InstanceTypes []string          `json:"instance_types,omitempty"`
	CapacityTypes []string          `json:"capacity_types,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	Taints        []Taint           `json:"taints,omitempty"`
	// ConsolidationPolicy and ConsolidateAfter are spec.disruption's.
	ConsolidationPolicy string `json:"consolidation_policy,omitempty"`
	ConsolidateAfter    string `json:"consolidate_after,omitempty"`
}

// NodePoolLabel is the label Karpenter puts on the nodes it launches for
// a NodePool (its name).
const NodePoolLabel = "karpenter.sh/nodepool"

// Admission policy kinds (AdmissionPolicy.Kind).
const (
	KindVAP               = "ValidatingAdmissionPolicy"
	KindKyvernoValidating = "ValidatingPolicy"
	KindKyvernoCluster    = "ClusterPolicy"
)

// AdmissionPolicy is a ValidatingAdmissionPolicy, or a Kyverno
// ValidatingPolicy or ClusterPolicy, with its labels (gpuwise's carry
// app.kubernetes.io/managed-by: gpuwise). A Kyverno policy is in force by
// itself; a ValidatingAdmissionPolicy only through a binding.
type AdmissionPolicy struct {
	Kind   string            `json:"kind"`
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	// Actions are a Kyverno policy's: ValidatingPolicy
	// spec.validationActions, a ClusterPolicy's rules'
	// validate.failureAction (or the spec-level validationFailureAction);
	// empty for a ValidatingAdmissionPolicy (its bindings say).
	Actions []string `json:"actions,omitempty"`
}

// AdmissionBinding is a ValidatingAdmissionPolicyBinding: the policy it
// binds and its validationActions (Deny, Warn, Audit).
type AdmissionBinding struct {
	Name    string   `json:"name"`
	Policy  string   `json:"policy"`
	Actions []string `json:"actions,omitempty"`
}

// Knows reports whether the source knows every object of resource: it
// listed them, or the API does not serve the resource at all.
func (c *Controls) Knows(resource string) bool {
	return c.Reads(resource) || c != nil && slices.Contains(c.NotServed, resource)
}

// Reads reports whether the source listed resource.
func (c *Controls) Reads(resource string) bool {
	if c == nil {
		return false
	}
	for _, r := range c.Read {
		if r == resource {
			return true
		}
	}
	return false
}

// Sort orders every list by its key, so that a snapshot is deterministic.
func (c *Controls) Sort() {
	sort.Strings(c.Read)
	sort.Strings(c.NotServed)
	sort.Slice(c.Autoscalers, func(i, j int) bool {
		a, b := &c.Autoscalers[i], &c.Autoscalers[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	sort.Slice(c.NodePools, func(i, j int) bool { return c.NodePools[i].Name < c.NodePools[j].Name })
	sort.Slice(c.Policies, func(i, j int) bool {
		if c.Policies[i].Kind != c.Policies[j].Kind {
			return c.Policies[i].Kind < c.Policies[j].Kind
		}
		return c.Policies[i].Name < c.Policies[j].Name
	})
	sort.Slice(c.Bindings, func(i, j int) bool { return c.Bindings[i].Name < c.Bindings[j].Name })
}
