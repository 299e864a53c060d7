package serve_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// manifests reads deploy/manifests/gpuwise.yaml strictly, by kind.
func manifests(t *testing.T) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "manifests", "gpuwise.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil || head.Kind == "" {
			continue
		}
		out[head.Kind] = []byte(doc)
	}
	return out
}

func strict(t *testing.T, b []byte, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(b, into); err != nil {
		t.Fatalf("%T: %v", into, err)
	}
}

// The plain manifests (rendered from the chart) run restricted, read-only,
// one writer, behind a ClusterIP Service, with exactly the shipped
// read-only ClusterRole.
func TestManifestsAreRestrictedAndReadOnly(t *testing.T) {
	t.Parallel()
	m := manifests(t)
	var dep appsv1.Deployment
	strict(t, m["Deployment"], &dep)
	if *dep.Spec.Replicas != 1 || dep.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("replicas %d, strategy %s; want 1 and Recreate (one SQLite writer)", *dep.Spec.Replicas, dep.Spec.Strategy.Type)
	}
	pod := dep.Spec.Template.Spec
	psc := pod.SecurityContext
	if psc == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context %+v: want non-root and RuntimeDefault seccomp", psc)
	}
	for _, c := range pod.Containers {
		sc := c.SecurityContext
		if sc == nil || *sc.AllowPrivilegeEscalation || !*sc.ReadOnlyRootFilesystem || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
			t.Errorf("container %s security context %+v: want no privilege escalation, read-only root, drop ALL", c.Name, sc)
		}
		if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
			t.Errorf("container %s probes: want /readyz and /healthz", c.Name)
		}
	}
	var svc corev1.Service
	strict(t, m["Service"], &svc)
	if svc.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("service type %s, want ClusterIP", svc.Spec.Type)
	}
	var role, shipped rbacv1.ClusterRole
	strict(t, m["ClusterRole"], &role)
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "rbac", "clusterrole.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	strict(t, b, &shipped)
	if diff := cmp.Diff(shipped.Rules, role.Rules); diff != "" {
		t.Errorf("the chart's ClusterRole differs from deploy/rbac/clusterrole.yaml (-shipped +chart):\n%s", diff)
	}
	for _, r := range role.Rules {
		if slices.Contains(r.Resources, "configmaps") || len(r.ResourceNames) > 0 {
			t.Errorf("ClusterRole grants %v on %v %v: the audit reads the admission modes from the bindings it lists, no ConfigMap", r.Verbs, r.Resources, r.ResourceNames)
		}
		for _, v := range r.Verbs {
			if v != "list" && v != "watch" {
				t.Errorf("ClusterRole grants %q on %v %v: gpuwise is read-only (list, watch)", v, r.Resources, r.ResourceNames)
			}
		}
	}
	var ns corev1.Namespace
	strict(t, m["Namespace"], &ns)
	if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
		t.Errorf("namespace labels %v: want the restricted Pod Security Standard enforced", ns.Labels)
	}
}

// Issue 31 M9: the chart exposed cost data to every pod (auth off, no
// NetworkPolicy). The plain manifests require the token Secret and let in
// Prometheus only.
func TestManifestsAreSecureByDefault(t *testing.T) {
	t.Parallel()
	m := manifests(t)
	var dep appsv1.Deployment
	strict(t, m["Deployment"], &dep)
	pod := dep.Spec.Template.Spec
	if !slices.Contains(pod.Containers[0].Args, "--auth-token-file=/etc/gpuwise/auth-token/token") {
		t.Errorf("args %q: want --auth-token-file", pod.Containers[0].Args)
	}
	found := false
	for _, v := range pod.Volumes {
		if v.Secret != nil && v.Secret.SecretName == "gpuwise-auth" && v.Secret.Optional == nil {
			found = true
		}
	}
	if !found {
		t.Errorf("volumes %+v: want the required Secret gpuwise-auth", pod.Volumes)
	}
	var np networkingv1.NetworkPolicy
	strict(t, m["NetworkPolicy"], &np)
	if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress || len(np.Spec.Ingress) != 1 {
		t.Fatalf("NetworkPolicy %+v: want one ingress rule (Prometheus)", np.Spec)
	}
	from := np.Spec.Ingress[0].From
	if len(from) != 1 || from[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "monitoring" ||
		from[0].PodSelector.MatchLabels["app.kubernetes.io/name"] != "prometheus" {
		t.Errorf("ingress from %+v: want Prometheus pods in monitoring only", from)
	}
	if got := np.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"]; got != "gpuwise" {
		t.Errorf("the NetworkPolicy selects %v", np.Spec.PodSelector)
	}
	if _, ok := m["Secret"]; ok {
		t.Error("the plain manifests carry a Secret: a token committed to git")
	}
}
