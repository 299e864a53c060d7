package generate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"sigs.k8s.io/yaml"
)

// TestVPAsDecodeStrictly decodes every generated VPA into the upstream
// autoscaling.k8s.io/v1 Go types with unknown fields rejected, and checks
// the fields that make it safe and useful: Off mode, the right target,
// cpu and memory controlled, minimums set.
func TestVPAsDecodeStrictly(t *testing.T) {
	t.Parallel()
	in := sampleVPAs()
	files, err := VPAs(in)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]byte{}
	for _, f := range files {
		byPath[f.Path] = f.Data
	}
	for _, v := range in {
		data := byPath[v.path()]
		var got vpav1.VerticalPodAutoscaler
		if err := yaml.UnmarshalStrict(data, &got); err != nil {
			t.Fatalf("%s does not decode strictly into VerticalPodAutoscaler: %v", v.path(), err)
		}
		if got.APIVersion != "autoscaling.k8s.io/v1" || got.Kind != "VerticalPodAutoscaler" {
			t.Errorf("%s: type %s %s", v.path(), got.APIVersion, got.Kind)
		}
		if got.Spec.UpdatePolicy == nil || got.Spec.UpdatePolicy.UpdateMode == nil ||
			*got.Spec.UpdatePolicy.UpdateMode != vpav1.UpdateModeOff {
			t.Errorf("%s: update mode is not Off: %+v", v.path(), got.Spec.UpdatePolicy)
		}
		apiVersion, _ := v.Workload.Kind.apiVersion()
		if ref := got.Spec.TargetRef; ref == nil || ref.Kind != string(v.Workload.Kind) ||
			ref.Name != v.Workload.Name || ref.APIVersion != apiVersion {
			t.Errorf("%s: targetRef %+v, want %s", v.path(), ref, v.Workload)
		}
		if got.Namespace != v.Workload.Namespace {
			t.Errorf("%s: namespace %q, want %q", v.path(), got.Namespace, v.Workload.Namespace)
		}
		wantNames := v.Containers
		if len(wantNames) == 0 {
			wantNames = []string{vpav1.DefaultContainerResourcePolicy}
		}
		var gotNames []string
		for _, p := range got.Spec.ResourcePolicy.ContainerPolicies {
			gotNames = append(gotNames, p.ContainerName)
			wantRes := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}
			if p.ControlledResources == nil || !cmp.Equal(*p.ControlledResources, wantRes) {
				t.Errorf("%s %s: controlledResources %v", v.path(), p.ContainerName, p.ControlledResources)
			}
			if diff := cmp.Diff(rl("cpu", "10m", "memory", "64Mi"), p.MinAllowed, quantityEqual); diff != "" {
				t.Errorf("%s %s: minAllowed (-want +got):\n%s", v.path(), p.ContainerName, diff)
			}
		}
		if diff := cmp.Diff(wantNames, gotNames); diff != "" {
			t.Errorf("%s: container policies (-want +got):\n%s", v.path(), diff)
		}
	}
}
