package kube

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/config"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// The admission rules' Go evaluator (what the audit says enforcing them
// would have blocked) decides the shared pod fixtures as the real API
// server does (test/integration/kube): on the pods as this source converts
// them. A snapshot has no init containers; where that changes the answer
// the fixture says so (gpuwise.test/refused-in-snapshot).
func TestPolicyEvaluatorOnTheSharedPodFixtures(t *testing.T) {
	t.Parallel()
	s := fixtureSettings(t)
	pods := fixturePods(t)
	if len(pods) < 20 {
		t.Fatalf("%d fixture pods", len(pods))
	}
	own := newOwners(nil, nil)
	for i := range pods {
		p := &pods[i]
		want := p.Annotations["gpuwise.test/refused"]
		if w, ok := p.Annotations["gpuwise.test/refused-in-snapshot"]; ok {
			want = w
		}
		cp := convertPod(p, own.of(p), time.Unix(0, 0))
		var got []string
		if !slices.Contains(s.ExemptNamespaces, cp.Namespace) {
			got = s.Refusals(&cp)
		}
		if diff := cmp.Diff(splitRules(want), got); diff != "" {
			t.Errorf("pod %s/%s refused by (-want +got):\n%s", p.Namespace, p.Name, diff)
		}
	}
}

func fixtureSettings(t *testing.T) policy.Settings {
	t.Helper()
	const path = "../policy/testdata/settings.yaml"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.ParseAdmission(path, b, policy.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fixturePods reads the shared pod fixtures.
func fixturePods(t *testing.T) []corev1.Pod {
	t.Helper()
	b, err := os.ReadFile("../policy/testdata/pods.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var pods []corev1.Pod
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var p corev1.Pod
		if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
			t.Fatal(err)
		}
		pods = append(pods, p)
	}
	return pods
}

func splitRules(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
