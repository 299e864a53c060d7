//go:build integration

package kube

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// claimSpec is a claim spec of one request per (class, count) pair; count
// -1 asks for All devices.
func claimSpec(reqs ...any) resourcev1.ResourceClaimSpec {
	var spec resourcev1.ResourceClaimSpec
	for i := 0; i+1 < len(reqs); i += 2 {
		ex := &resourcev1.ExactDeviceRequest{DeviceClassName: reqs[i].(string), AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: int64(reqs[i+1].(int))}
		if ex.Count < 0 {
			ex.AllocationMode, ex.Count = resourcev1.DeviceAllocationModeAll, 0
		}
		spec.Devices.Requests = append(spec.Devices.Requests, resourcev1.DeviceRequest{Name: fmt.Sprintf("r%d", i/2), Exactly: ex})
	}
	return spec
}

// checkClaims: the generated ResourceClaim and ResourceClaimTemplate
// policies, in deny mode, on the real API server (server-side dry runs:
// admission runs, nothing is stored). Settings of the fixtures: dev-pol is
// a dev namespace, pol-ml caps 2 GPU units per pod.
func checkClaims(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	claim := func(ns string, spec resourcev1.ResourceClaimSpec) error {
		_, err := cs.ResourceV1().ResourceClaims(ns).Create(ctx, &resourcev1.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c"}, Spec: spec}, dry)
		return err
	}
	template := func(ns string, spec resourcev1.ResourceClaimSpec) error {
		_, err := cs.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, &resourcev1.ResourceClaimTemplate{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "t"}, Spec: resourcev1.ResourceClaimTemplateSpec{Spec: spec}}, dry)
		return err
	}
	gpu, mig := cluster.DRAGPUClass, cluster.DRAMIGClass
	waitFor(t, "the ResourceClaim policies to refuse", 30*time.Second, func() (bool, string) {
		err := claim("dev-pol", claimSpec(gpu, 1))
		return err != nil && strings.Contains(err.Error(), "gpuwise-resourceclaims"), fmt.Sprint(err)
	})
	waitFor(t, "the ResourceClaimTemplate policies to refuse", 30*time.Second, func() (bool, string) {
		err := template("dev-pol", claimSpec(gpu, 1))
		return err != nil && strings.Contains(err.Error(), "gpuwise-resourceclaimtemplates"), fmt.Sprint(err)
	})
	firstAvailable := resourcev1.ResourceClaimSpec{}
	firstAvailable.Devices.Requests = []resourcev1.DeviceRequest{{Name: "gpu", FirstAvailable: []resourcev1.DeviceSubRequest{
		{Name: "slice", DeviceClassName: mig, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
		{Name: "whole", DeviceClassName: gpu, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}}}
	const (
		dev = "gpuwise GW006 whole-gpu-in-dev-namespace"
		max = "gpuwise max-gpus-per-pod"
	)
	for _, tc := range []struct {
		name   string
		create func() error
		refuse string // the rule's message prefix, "" admitted
	}{
		{"whole GPU claim in a dev namespace", func() error { return claim("dev-pol", claimSpec(gpu, 1)) }, dev},
		{"MIG claim in a dev namespace", func() error { return claim("dev-pol", claimSpec(mig, 1)) }, ""},
		{"MIG first, whole GPU as fallback, in a dev namespace", func() error { return claim("dev-pol", firstAvailable) }, dev},
		{"whole GPU claim elsewhere", func() error { return claim("pol-ml", claimSpec(gpu, 1)) }, ""},
		{"three whole GPUs where the cap is 2", func() error { return claim("pol-ml", claimSpec(gpu, 3)) }, max},
		{"a GPU and two MIG devices where the cap is 2", func() error { return claim("pol-ml", claimSpec(gpu, 1, mig, 2)) }, max},
		{"two MIG devices where the cap is 2", func() error { return claim("pol-ml", claimSpec(mig, 2)) }, ""},
		{"all GPUs of a node", func() error { return claim("pol-ml", claimSpec(gpu, -1)) }, max},
		{"five devices of another class", func() error { return claim("pol-ml", claimSpec("nic.example.com", 5)) }, ""},
		{"whole GPU template in a dev namespace", func() error { return template("dev-pol", claimSpec(gpu, 1)) }, dev},
		{"MIG template in a dev namespace", func() error { return template("dev-pol", claimSpec(mig, 1)) }, ""},
		{"three-GPU template where the cap is 2", func() error { return template("pol-ml", claimSpec(gpu, 3)) }, max},
	} {
		err := tc.create()
		switch {
		case tc.refuse == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.refuse != "" && (err == nil || !strings.Contains(err.Error(), tc.refuse)):
			t.Errorf("%s: %v; want refused by %s", tc.name, err, tc.refuse)
		}
	}

	// A pod that holds its GPU through a claim names the claim and has no
	// GPU limit: it tolerates the GPU taint legitimately, so GW002 lets it
	// pass; the same pod naming no claim is refused.
	dra := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "pol-ml", Name: "dra-pod", Labels: map[string]string{"team": "ml"}},
		Spec: podSpec([]string{"cpu", "1", "memory", "1Gi"}, []string{"cpu", "1", "memory", "1Gi"}, nil, true)}
	plain := dra.DeepCopy()
	dra.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: sp("one-gpu")}}
	dra.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	if _, err := cs.CoreV1().Pods("pol-ml").Create(ctx, dra, dry); err != nil {
		t.Errorf("a DRA pod tolerating the GPU taint: refused: %v", err)
	}
	if _, err := cs.CoreV1().Pods("pol-ml").Create(ctx, plain, dry); err == nil || !strings.Contains(err.Error(), "gpuwise GW002 non-gpu-pod-tolerates-gpu-taint") {
		t.Errorf("the same pod without a claim: %v; want refused by GW002", err)
	}
}

// checkClaimFixtures: the native claim policies, in deny mode, refuse
// each shared claim fixture by exactly the rules its annotation names
// (server-side dry runs), the verdicts gator gives with the Gatekeeper
// claim policies (TestGatorOnTheSharedClaimFixtures).
func checkClaimFixtures(ctx context.Context, t *testing.T, dyn dynamic.Interface) {
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	got := map[string][]string{}
	for _, o := range fixtureClaims(t) {
		gvr := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: strings.ToLower(o.GetKind()) + "s"}
		_, err := dyn.Resource(gvr).Namespace(o.GetNamespace()).Create(ctx, o, dry)
		if err == nil {
			continue
		}
		rules := rulesIn(err.Error())
		if len(rules) == 0 {
			t.Errorf("%s: refused by no gpuwise rule: %v", claimKey(o), err)
		}
		got[claimKey(o)] = rules
	}
	checkClaimVerdicts(t, "the API server", got)
}
