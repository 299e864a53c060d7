package kube

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/cluster"
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

// The claim policies' Go evaluator (what the audit and the preview count)
// decides the shared claim fixtures as the real API server and gator do
// (test/integration/kube), on the claims and templates as this source
// converts them. A snapshot keeps a firstAvailable request's first
// alternative only; where that changes the answer the fixture says so
// (gpuwise.test/refused-in-snapshot).
func TestPolicyEvaluatorOnTheSharedClaimFixtures(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../policy/testdata/claims.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dra := &cluster.DRAInfo{}
	want := map[string][]string{}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatal(err)
		}
		var om metav1.ObjectMeta
		switch tm.Kind {
		case "ResourceClaim":
			var c resourcev1.ResourceClaim
			if err := yaml.UnmarshalStrict([]byte(doc), &c); err != nil {
				t.Fatal(err)
			}
			om = c.ObjectMeta
			dra.Claims = append(dra.Claims, cluster.ResourceClaim{Namespace: c.Namespace, Name: c.Name, Requests: requestsOf(&c.Spec)})
		case "ResourceClaimTemplate":
			var c resourcev1.ResourceClaimTemplate
			if err := yaml.UnmarshalStrict([]byte(doc), &c); err != nil {
				t.Fatal(err)
			}
			om = c.ObjectMeta
			dra.Templates = append(dra.Templates, convertTemplate(&c))
		default:
			t.Fatalf("claim fixture of kind %q", tm.Kind)
		}
		rules := om.Annotations["gpuwise.test/refused"]
		if w, ok := om.Annotations["gpuwise.test/refused-in-snapshot"]; ok {
			rules = w
		}
		for _, r := range splitRules(rules) {
			want[r] = append(want[r], tm.Kind+" "+om.Namespace+"/"+om.Name)
		}
	}
	if len(dra.Claims) < 10 || len(dra.Templates) < 4 {
		t.Fatalf("%d claim and %d template fixtures", len(dra.Claims), len(dra.Templates))
	}
	for _, v := range want {
		slices.Sort(v)
	}
	if diff := cmp.Diff(want, fixtureSettings(t).EvaluateClaims(dra)); diff != "" {
		t.Errorf("refused by rule (-want +got):\n%s", diff)
	}
}
