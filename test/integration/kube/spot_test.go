//go:build integration

package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/generate"
)

// TestSpotPlacementPrefersSpotAndFallsBack (issue 27): the affinity and
// tolerations `gpuwise generate spot` writes, on GPU pods bound by the
// real kube-scheduler. With only an on-demand GPU node, the pod binds to
// it (a required spot affinity would leave it pending); once a spot GPU
// node exists, the next pod binds to spot although the on-demand node is
// the larger, emptier one the scheduler's resource scoring favours — as a
// control pod without the fragment shows by binding on-demand.
func TestSpotPlacementPrefersSpotAndFallsBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, _ := admin(t)
	const ns, mark = "spot-fallback", "gpuwise.io/test"
	ensureNamespace(ctx, t, cs, ns)
	files, _, err := generate.SpotPlacements([]generate.SpotPlacement{{Kind: "Deployment", Namespace: ns, Name: "trainer", Evidence: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	var patch appsv1.Deployment
	for _, f := range files {
		if strings.HasSuffix(f.Path, "deployment-trainer.yaml") {
			if err := yaml.UnmarshalStrict(f.Data, &patch); err != nil {
				t.Fatal(err)
			}
		}
	}
	frag := patch.Spec.Template.Spec
	if frag.Affinity == nil {
		t.Fatalf("no affinity in the generated placement: %+v", files)
	}
	od := kwokNode("spot-fallback-od", awsLabels("p4d.24xlarge", "on-demand", mark, "spot-fallback"), []corev1.Taint{gpuTaint}, "",
		"cpu", "96", "memory", "1152Gi", "nvidia.com/gpu", "8")
	spot := kwokNode("spot-fallback-spot", awsLabels("g5.12xlarge", "spot", mark, "spot-fallback"), []corev1.Taint{gpuTaint}, "",
		"cpu", "48", "memory", "192Gi", "nvidia.com/gpu", "4")
	t.Cleanup(func() {
		bg := context.Background()
		cs.CoreV1().Namespaces().Delete(bg, ns, metav1.DeleteOptions{})
		for _, n := range []string{od.Name, spot.Name} {
			cs.CoreV1().Nodes().Delete(bg, n, metav1.DeleteOptions{})
		}
	})
	if _, err := cs.CoreV1().Nodes().Create(ctx, od, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := func(name string, withFragment bool) *corev1.Pod {
		spec := corev1.PodSpec{NodeSelector: map[string]string{mark: "spot-fallback"},
			Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{Name: "train", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{"cpu": resource.MustParse("4"), "memory": resource.MustParse("16Gi"), "nvidia.com/gpu": resource.MustParse("1")},
				Limits:   corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}}}}}
		if withFragment {
			spec.Affinity = frag.Affinity
			spec.Tolerations = append(spec.Tolerations, frag.Tolerations...)
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec}
	}
	if got := bind(ctx, t, cs, pod("no-spot-node", true)); got != od.Name {
		t.Fatalf("with no spot node the pod bound to %q, want the on-demand node %s", got, od.Name)
	}
	if _, err := cs.CoreV1().Nodes().Create(ctx, spot, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Until KWOK marks the new node Ready and the node lifecycle
	// controller lifts its not-ready taint, the scheduler filters it out
	// and every pod lands on-demand: the checks below would race it.
	waitFor(t, "node "+spot.Name+" to be Ready without the not-ready taint", time.Minute, func() (bool, string) {
		n, err := cs.CoreV1().Nodes().Get(ctx, spot.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return nodeReady(n), "not Ready"
	})
	if got := bind(ctx, t, cs, pod("control", false)); got != od.Name {
		t.Fatalf("the control pod (no spot fragment) bound to %q: the on-demand node must be the one resource scoring favours, or the next check proves nothing", got)
	}
	if got := bind(ctx, t, cs, pod("spot-node", true)); got != spot.Name {
		t.Errorf("with a spot node present the pod bound to %q, want the spot node %s", got, spot.Name)
	}
	t.Logf("no spot node → %s; spot node present → %s (control without the fragment → %s)", od.Name, spot.Name, od.Name)
}

// bind creates a pod and returns the node the real scheduler binds it to.
func bind(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, p *corev1.Pod) string {
	t.Helper()
	if _, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s: %v", p.Name, err)
	}
	var node string
	waitFor(t, "pod "+p.Name+" to be bound", 60*time.Second, func() (bool, string) {
		got, err := cs.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		node = got.Spec.NodeName
		return node != "", string(got.Status.Phase)
	})
	return node
}
