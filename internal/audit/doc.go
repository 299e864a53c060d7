// Package audit owns the GPU hygiene rules: it reads a cluster.Snapshot
// and returns findings (rule, severity, object, evidence, $/month impact
// where priceable, remediation). It is pure core: it imports cluster,
// pricing and nodeprice (node prices), gpurule (what a GPU container is,
// when the GPU taint is tolerated, the limits and dev-namespace rules'
// predicates: the admission policies' too) and the standard library only
// — no other engine, never Kubernetes or CLI packages — and it never
// applies a remediation.
//
// Every rule is in Rules with its ID, default severity and help text;
// docs/audit.md lists them for people.
package audit
