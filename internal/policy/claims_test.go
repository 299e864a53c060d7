package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// What the claim policies refuse, decided in Go on a snapshot's claims
// and templates as the CEL decides it on the API server (the kube tier's
// checkClaims has the same cases): a whole-GPU class in a dev namespace,
// more GPU devices than the namespace's cap (All: more than any), other
// classes and exempt namespaces never.
func TestEvaluateClaims(t *testing.T) {
	t.Parallel()
	req := func(class string, n int64) cluster.DeviceRequest {
		return cluster.DeviceRequest{Name: "r", DeviceClass: class, Count: n}
	}
	dra := &cluster.DRAInfo{
		Claims: []cluster.ResourceClaim{
			{Namespace: "dev-x", Name: "nb", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 1)}},
			{Namespace: "dev-x", Name: "mig", Requests: []cluster.DeviceRequest{req(cluster.DRAMIGClass, 1)}},
			{Namespace: "ml", Name: "big", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 5), req(cluster.DRAMIGClass, 4)}},
			{Namespace: "ml", Name: "eight", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 8)}},
			{Namespace: "ml", Name: "all", Requests: []cluster.DeviceRequest{{Name: "r", DeviceClass: cluster.DRAGPUClass, All: true}}},
			{Namespace: "ml", Name: "nic", Requests: []cluster.DeviceRequest{req("nic.example.com", 20)}},
			{Namespace: "kube-system", Name: "sys", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 20)}},
		},
		Templates: []cluster.ClaimTemplate{{Namespace: "dev-x", Name: "tmpl", Requests: []cluster.DeviceRequest{req(cluster.DRAGPUClass, 1)}}},
	}
	got := Defaults().EvaluateClaims(dra)
	want := map[string][]string{
		RuleDevWholeGPU.Name: {"ResourceClaim dev-x/nb", "ResourceClaimTemplate dev-x/tmpl"},
		RuleMaxGPUs.Name:     {"ResourceClaim ml/all", "ResourceClaim ml/big"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	s := Defaults()
	s.Rules = map[string]RuleSettings{RuleMaxGPUs.Name: {Disabled: true}}
	if got := s.EvaluateClaims(dra); len(got[RuleMaxGPUs.Name]) != 0 {
		t.Errorf("a disabled rule refuses %v", got[RuleMaxGPUs.Name])
	}
	notes := Preview(Defaults(), &cluster.Snapshot{DRA: dra})
	if len(notes) != 2 || !strings.Contains(notes[0], "would refuse 2 ResourceClaim(s) or template(s)") {
		t.Errorf("preview %q", notes)
	}
}
