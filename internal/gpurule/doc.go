// Package gpurule is the one definition of the GPU-pod hygiene rules that
// both the audit (findings over a snapshot) and the admission policies
// (what the generated policies refuse, evaluated in Go over a snapshot)
// apply: what a GPU container and a GPU pod are (resources matching
// patterns such as "nvidia.com/mig-*"), when a toleration tolerates the
// GPU taint, when a GPU container's CPU and memory limits fall short of
// Guaranteed QoS, and how many whole GPUs a pod asks for in a dev
// namespace. The audit's findings and the policies' refusals agree on
// every pod (TestAuditAndPolicyAgree, and on the shared pod fixtures that
// the real API server also decides: internal/kube's
// TestAuditAgreesWithThePoliciesOnTheSharedPodFixtures); the generated
// CEL is checked against the same fixtures by the integration tier.
//
// A rule's answer may be unknown where a source cannot read what it needs
// (Verdict).
//
// Pure core: it imports cluster and the standard library only.
package gpurule
