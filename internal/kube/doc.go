// Package kube is the Kubernetes adapter: it reads nodes, pods, ReplicaSets,
// Jobs and the DRA objects (resource.k8s.io/v1) through client-go with
// paginated lists or shared informers and converts them into a
// cluster.Snapshot (inventory only: GPU holdings carry no activity, which
// the core reads as "unmeasured"). For the audit's admission section it
// also lists ValidatingAdmissionPolicies and their bindings (names, labels,
// annotations, validationActions, paramRefs: Admission; a gpuwise
// binding's labels are the rules it checks) and asks discovery whether
// MutatingAdmissionPolicy is served. Where the cluster serves Kueue
// (kueue.x-k8s.io/v1beta2) it lists ClusterQueues, LocalQueues,
// ResourceFlavors, Cohorts and Workloads through the dynamic client,
// converted into Kueue's own types at the boundary (kueue.go).
//
// It owns the boundary types: resource.Quantity, v1.Node and v1.Pod never
// leave this package. It is read-only: it never creates, patches or
// deletes anything. Errors are classified (ConfigError, APIError) so the
// CLI can map them to exit codes; the package itself knows nothing of
// exit codes or flags.
//
// The API does not say which physical GPU a pod was given (that lives in
// the kubelet's pod-resources API on the node), so GPU units are assigned
// to pods deterministically: pods in (start time, namespace, name) order
// take the first free units of the kind they requested on their node.
package kube
