// Package policy owns gpuwise's admission rules: the GPU hygiene rules of
// the audit that admission can enforce (GW002, GW003, GW004, GW006, each
// named in its policy) plus cost-allocation labels and a per-namespace cap
// on GPUs per pod. From one Settings value it builds the policy objects for
// three engines — the API server's own ValidatingAdmissionPolicy and
// MutatingAdmissionPolicy (native), Kyverno (ValidatingPolicy, or the
// legacy ClusterPolicy) and Gatekeeper (ConstraintTemplate + constraint) —
// as plain structs whose JSON field names are the upstream ones; it
// evaluates the same rules in Go over a snapshot's pods (what enforcing
// them would block) and reads which rules a cluster enforces from the
// installed policies' labels and annotations and their bindings' labels.
//
// The CEL is generated from Settings (globs become anchored RE2 patterns,
// resource names and the taint are inlined). The native engine writes one
// ValidatingAdmissionPolicy per object shape holding every rule, bound
// once per rollout mode; each binding is its own params and carries the
// rules in its mode as labels (native.go says why). Every rule rolls out in
// warn/audit mode first; Rollout gives the command that flips it to deny.
//
// Pure core: it imports cluster, gpurule (the GPU-pod rules' predicates,
// shared with the audit) and the standard library only — no other
// engine, never Kubernetes client packages, no I/O, no clock. Rule IDs are
// the audit's (internal/audit), checked by a test rather than imported,
// since engines do not import each other.
package policy
