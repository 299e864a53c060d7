//go:build integration

package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/cli"
)

// Shared fixtures of the admission rules (internal/policy/testdata).
const (
	fixtureSettings = "../../../internal/policy/testdata/settings.yaml"
	fixturePodsFile = "../../../internal/policy/testdata/pods.yaml"
	// fixtureClaimsFile holds the shared ResourceClaim and template
	// fixtures of the claim policies.
	fixtureClaimsFile = "../../../internal/policy/testdata/claims.yaml"
)

var policyNamespaces = []string{"pol-ml", "pol-agents", "dev-pol"}

// The generated native policies on the real API server: every fixture pod
// is refused (deny) or admitted with a warning (warn) by exactly the rules
// its annotation names, compliant pods are admitted, rollout.sh flips the
// mode, the workload policies refuse at apply time, the mutating policy
// adds the toleration, and the audit reads the rules as enforced.
func TestAdmissionPoliciesOnTheRealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cs, cfg := admin(t)
	dyn := dynamic.NewForConfigOrDie(cfg)
	namespaces(ctx, t, cs, append(policyNamespaces, "gpuwise"))
	defer deleteNamespaces(cs, policyNamespaces)
	defer deleteGpuwisePolicies(t, dyn)
	defer deleteFixturesIn(cs, "kube-system")

	dir := generatePolicies(t, "--engine", "native", "--mode", "deny", "--policy-settings", fixtureSettings)
	applyDir(ctx, t, dyn, filepath.Join(dir, "policy", "native"))
	checkTypeChecking(ctx, t, dyn)
	waitMode(ctx, t, cs, true)
	pods := fixturePods(t)

	t.Run("deny", func(t *testing.T) { checkDeny(ctx, t, cs, pods) })
	t.Run("quantity forms", func(t *testing.T) { checkQuantityForms(ctx, t, cs) })
	t.Run("workloads", func(t *testing.T) { checkWorkloads(ctx, t, cs) })
	t.Run("resource claims", func(t *testing.T) { checkClaims(ctx, t, cs) })
	t.Run("shared claim fixtures", func(t *testing.T) { checkClaimFixtures(ctx, t, dyn) })
	t.Run("warn", func(t *testing.T) {
		rollout(t, cfg, dir, "warn")
		waitMode(ctx, t, cs, false)
		waitAdmitted(ctx, t, cs, pods)
		checkWarn(ctx, t, cfg, pods)
		legacy := deployment("pol-ml", "legacy", 0, podSpec(nil, []string{"nvidia.com/gpu", "1"}, nil, true))
		legacy.Spec.Template.Labels["team"] = "ml"
		if _, err := cs.AppsV1().Deployments("pol-ml").Create(ctx, legacy, metav1.CreateOptions{}); err != nil {
			t.Errorf("warn mode refused a Deployment: %v", err)
		}
	})
	reader := serviceAccountKubeconfig(ctx, t, cs, cfg, "gpuwise", true)
	t.Run("audit in warn mode", func(t *testing.T) { checkAdmissionAudit(ctx, t, cs, reader, "warn", pods) })
	t.Run("audit in deny mode", func(t *testing.T) {
		rollout(t, cfg, dir, "deny")
		waitMode(ctx, t, cs, true)
		checkAdmissionAudit(ctx, t, cs, reader, "deny", pods)
	})
	t.Run("flip one rule", func(t *testing.T) { checkFlipOne(ctx, t, cs, cfg, dir, reader) })
	t.Run("audit with a role that cannot list the policies", func(t *testing.T) {
		checkOldRole(ctx, t, cs, cfg, "admissionregistration.k8s.io", "validatingadmissionpolicies")
	})
	t.Run("params informer", func(t *testing.T) { checkParamsInformer(t) })
	t.Run("workload updates", func(t *testing.T) { checkUpdates(ctx, t, cs) })
	t.Run("mutation", func(t *testing.T) { checkMutation(ctx, t, cs, dyn) })
}

// generatePolicies runs gpuwise generate policy into a directory.
func generatePolicies(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	_, errOut, code := execute(t, append([]string{"generate", "policy", "-d", dir}, args...)...)
	if code != cli.ExitOK {
		t.Fatalf("generate policy %v: exit %d: %s", args, code, errOut)
	}
	return dir
}

func namespaces(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, names []string) {
	t.Helper()
	for _, ns := range names {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

func deleteNamespaces(cs *kubernetes.Clientset, names []string) {
	for _, ns := range names {
		cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	}
}

// deleteFixturesIn removes the fixture pods of a namespace the test does
// not own.
func deleteFixturesIn(cs *kubernetes.Clientset, ns string) {
	l, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return
	}
	for _, p := range l.Items {
		if _, ok := p.Annotations["gpuwise.test/refused"]; ok {
			cs.CoreV1().Pods(ns).Delete(context.Background(), p.Name, metav1.DeleteOptions{})
		}
	}
}

// gvrs are the resources the generated objects (and the engines' CRDs) are.
var gvrs = map[string]schema.GroupVersionResource{
	"ConfigMap":                        {Version: "v1", Resource: "configmaps"},
	"ValidatingAdmissionPolicy":        {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"},
	"ValidatingAdmissionPolicyBinding": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"},
	"MutatingAdmissionPolicy":          {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicies"},
	"MutatingAdmissionPolicyBinding":   {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicybindings"},
	"CustomResourceDefinition":         {Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
	"ValidatingPolicy":                 {Group: "policies.kyverno.io", Version: "v1", Resource: "validatingpolicies"},
	"ClusterPolicy":                    {Group: "kyverno.io", Version: "v1", Resource: "clusterpolicies"},
	"ConstraintTemplate":               {Group: "templates.gatekeeper.sh", Version: "v1", Resource: "constrainttemplates"},
}

// gvrOf is the resource of an object; a Gatekeeper constraint's is its
// kind in lower case under constraints.gatekeeper.sh, as Gatekeeper names
// the CRD it generates.
func gvrOf(apiVersion, kind string) schema.GroupVersionResource {
	if g, ok := gvrs[kind]; ok {
		return g
	}
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.WithResource(strings.ToLower(kind))
}

// readObjects reads every YAML document of the files under dir.
func readObjects(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no YAML under %s: %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(b), "\n---\n") {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if m != nil {
				out = append(out, &unstructured.Unstructured{Object: m})
			}
		}
	}
	return out
}

// applyDir creates every object under dir with strict field validation:
// the server refuses unknown fields and CEL it cannot compile.
func applyDir(ctx context.Context, t *testing.T, dyn dynamic.Interface, dir string) {
	t.Helper()
	for _, o := range readObjects(t, dir) {
		if _, err := dyn.Resource(gvrOf(o.GetAPIVersion(), o.GetKind())).Namespace(o.GetNamespace()).Create(ctx, o, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
			t.Fatalf("the API server refuses the generated %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

// deleteGpuwisePolicies removes every gpuwise admission object.
func deleteGpuwisePolicies(t *testing.T, dyn dynamic.Interface) {
	sel := metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=gpuwise"}
	for _, kind := range []string{"ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "MutatingAdmissionPolicy"} {
		if err := dyn.Resource(gvrs[kind]).DeleteCollection(context.Background(), metav1.DeleteOptions{}, sel); err != nil {
			t.Errorf("deleting %s: %v", kind, err)
		}
	}
}

// checkTypeChecking waits for kube-controller-manager to type-check every
// pod policy against the Pod schema and requires no warning: a field or
// function the server does not know is a failure, not a silent runtime
// error.
func checkTypeChecking(ctx context.Context, t *testing.T, dyn dynamic.Interface) {
	t.Helper()
	waitFor(t, "kube-controller-manager to type-check the policies", 60*time.Second, func() (bool, string) {
		l, err := dyn.Resource(gvrs["ValidatingAdmissionPolicy"]).List(ctx, metav1.ListOptions{LabelSelector: "gpuwise.io/shape"})
		if err != nil {
			return false, err.Error()
		}
		var pending, warnings []string
		for _, p := range l.Items {
			seen, _, _ := unstructured.NestedInt64(p.Object, "status", "observedGeneration")
			if seen < p.GetGeneration() {
				pending = append(pending, p.GetName())
				continue
			}
			ws, _, _ := unstructured.NestedSlice(p.Object, "status", "typeChecking", "expressionWarnings")
			for _, w := range ws {
				warnings = append(warnings, fmt.Sprintf("%s: %v", p.GetName(), w))
			}
		}
		if len(pending) == 0 && len(warnings) > 0 {
			t.Errorf("type-checking warnings on generated policies:\n%s", strings.Join(warnings, "\n"))
		}
		return len(pending) == 0 && len(l.Items) > 0, fmt.Sprintf("%d policies, not yet checked: %v", len(l.Items), pending)
	})
}

// probe is a pod every rule set refuses (GW004: no toleration).
func probe() *corev1.Pod {
	no := false
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "pol-ml", Labels: map[string]string{"team": "ml"}},
		Spec: corev1.PodSpec{AutomountServiceAccountToken: &no, Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/app:1",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": mustQ("1"), "cpu": mustQ("1"), "memory": mustQ("1Gi")}}}}}}
}

// waitMode waits until the policies deny (or no longer deny) the probe, by
// server-side dry run: bindings reach the admission plugin through an
// informer, a moment after they are written.
func waitMode(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, deny bool) {
	t.Helper()
	waitFor(t, fmt.Sprintf("the policies to deny=%v", deny), 30*time.Second, func() (bool, string) {
		_, err := cs.CoreV1().Pods("pol-ml").Create(ctx, probe(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return (err != nil) == deny, fmt.Sprint(err)
	})
}

// waitAdmitted waits until every pod passes admission, by server-side dry
// run: each binding reaches the admission plugin on its own, so one probe
// admitted does not mean every rule has left deny mode (a flake under load).
func waitAdmitted(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, pods []corev1.Pod) {
	t.Helper()
	waitFor(t, "every binding to leave deny mode", 30*time.Second, func() (bool, string) {
		for i := range pods {
			if _, err := cs.CoreV1().Pods(pods[i].Namespace).Create(ctx, pods[i].DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
				return false, fmt.Sprint(err)
			}
		}
		return true, ""
	})
}

// expected is the rules a fixture pod's annotation says refuse it.
func expected(p *corev1.Pod) []string {
	return splitRules(p.Annotations["gpuwise.test/refused"])
}

func splitRules(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// ruleOf maps a policy (or binding) name in a message to its rule.
func rulesIn(text string) []string {
	var out []string
	for _, r := range []string{"non-gpu-pod-tolerates-gpu-taint", "gpu-container-limits", "gpu-pod-toleration",
		"whole-gpu-in-dev-namespace", "gpu-pod-cost-labels", "max-gpus-per-pod"} {
		if strings.Contains(text, "gpuwise "+r) || strings.Contains(text, " "+r+":") {
			out = append(out, r)
		}
	}
	return out
}

func checkDeny(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, pods []corev1.Pod) {
	for i := range pods {
		p := pods[i].DeepCopy()
		want := expected(p)
		_, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		switch {
		case len(want) == 0 && err != nil:
			t.Errorf("compliant pod %s/%s refused: %v", p.Namespace, p.Name, err)
		case len(want) > 0 && err == nil:
			t.Errorf("pod %s/%s admitted; want refused by %v", p.Namespace, p.Name, want)
		case len(want) > 0 && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'gpuwise-") ||
			!slices.Contains(want, firstRule(err.Error()))):
			t.Errorf("pod %s/%s: want a 422 from a gpuwise policy naming one of %v, got %v", p.Namespace, p.Name, want, err)
		}
		if err == nil {
			cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
		}
	}
}

func firstRule(msg string) string {
	if r := rulesIn(msg); len(r) > 0 {
		return r[0]
	}
	return ""
}

// warnings records the API's Warning headers.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

// checkWarn creates every fixture pod for real (they stay, for the audit):
// all are admitted, and the warnings name exactly the expected rules.
func checkWarn(ctx context.Context, t *testing.T, cfg *rest.Config, pods []corev1.Pod) {
	w := &warnings{}
	c := rest.CopyConfig(cfg)
	c.WarningHandler = w
	cs := kubernetes.NewForConfigOrDie(c)
	for i := range pods {
		p := pods[i].DeepCopy()
		if _, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Errorf("warn mode refused %s/%s: %v", p.Namespace, p.Name, err)
			continue
		}
		var got []string
		for _, text := range w.take() {
			if !strings.HasPrefix(text, "Validation failed for ValidatingAdmissionPolicy 'gpuwise-") {
				t.Errorf("%s/%s: unexpected warning %q", p.Namespace, p.Name, text)
			}
			got = append(got, rulesIn(text)...)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(expected(p)))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s/%s warned by (-want +got):\n%s", p.Namespace, p.Name, diff)
		}
	}
}

// rollout runs the generated rollout.sh (kubectl) against the cluster:
// every rule, or the one named.
func rollout(t *testing.T, cfg *rest.Config, dir, mode string, rule ...string) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{filepath.Join(dir, "policy", "native", "rollout.sh"), mode}, rule...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+os.Getenv("GPUWISE_TEST_KUBECONFIG"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rollout.sh %s: %v\n%s", mode, err, out)
	}
	// Two kubectl label calls (the new mode's bindings, then the old
	// one's), each over the five shapes' bindings (pods, workloads,
	// cronjobs, resourceclaims, resourceclaimtemplates).
	if n := strings.Count(string(out), "validatingadmissionpolicybinding.admissionregistration.k8s.io/gpuwise-"); n != 10 {
		t.Fatalf("rollout.sh %s: %d bindings in its output, want 10:\n%s", mode, n, out)
	}
}

// checkAdmissionAudit runs gpuwise audit with the shipped read-only role:
// every rule has the mode's status, and what each would have blocked in
// the fixture namespaces is exactly the fixture pods it refuses (as the
// snapshot sees them) among those still there (the garbage collector
// removes the pods whose DaemonSet owner does not exist).
func checkAdmissionAudit(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, kubeconfig, mode string, pods []corev1.Pod) {
	present := map[string]bool{}
	for _, ns := range policyNamespaces {
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Items {
			present[ns+"/"+p.Name] = true
		}
	}
	out, errOut, code := execute(t, "audit", "--kubeconfig", kubeconfig, "-o", "json", "--policy-settings", fixtureSettings)
	if code != cli.ExitOK {
		t.Fatalf("audit exit %d: %s", code, errOut)
	}
	var res struct {
		Admission struct {
			Rules []struct {
				Rule, Status string
				Enforced     bool
				Policies     []string
				WouldBlock   struct{ Workloads []string } `json:"would_block"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Admission.Rules) != 6 {
		t.Fatalf("admission section has %d rules: %s", len(res.Admission.Rules), out)
	}
	for _, r := range res.Admission.Rules {
		if r.Status != mode || r.Enforced != (mode == "deny") || len(r.Policies) == 0 {
			t.Errorf("rule %s: status %s, enforced %v, policies %v; want %s", r.Rule, r.Status, r.Enforced, r.Policies, mode)
		}
		var got, want []string
		for _, w := range r.WouldBlock.Workloads {
			if slices.Contains(policyNamespaces, strings.SplitN(w, "/", 2)[0]) {
				got = append(got, w)
			}
		}
		for i := range pods {
			refused := expected(&pods[i])
			if s, ok := pods[i].Annotations["gpuwise.test/refused-in-snapshot"]; ok {
				refused = splitRules(s)
			}
			if slices.Contains(refused, r.Rule) && present[pods[i].Namespace+"/"+pods[i].Name] {
				want = append(want, pods[i].Namespace+"/Pod/"+pods[i].Name)
			}
		}
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("rule %s would have blocked (-want +got):\n%s", r.Rule, diff)
		}
	}
}

// checkWorkloads: in deny mode a Deployment or CronJob whose template
// breaks a rule is refused when it is applied, not later in its
// ReplicaSet's events; a compliant one is admitted.
func checkWorkloads(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	bad := deployment("pol-ml", "no-limits", 1, podSpec(nil, []string{"nvidia.com/gpu", "1"}, nil, true))
	bad.Spec.Template.Labels["team"] = "ml"
	// Each policy reaches the admission plugin on its own, compiled: the
	// pods policy denying (waitMode) does not mean the workloads one is
	// there yet (a flake under load).
	waitFor(t, "the workloads policy to refuse by dry run", 30*time.Second, func() (bool, string) {
		_, err := cs.AppsV1().Deployments("pol-ml").Create(ctx, bad.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil, fmt.Sprint(err)
	})
	_, err := cs.AppsV1().Deployments("pol-ml").Create(ctx, bad, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "'gpuwise-workloads' with binding 'gpuwise-workloads-deny'") || !strings.Contains(err.Error(), "gpuwise GW003 gpu-container-limits") {
		t.Errorf("Deployment without limits: %v; want refused by gpuwise-workloads, GW003", err)
	}
	good := deployment("pol-ml", "guaranteed", 1, podSpec([]string{"cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "1"},
		[]string{"cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "1"}, map[string]string{"gpuwise-test": "nowhere"}, true))
	good.Spec.Template.Labels["team"] = "ml"
	if _, err := cs.AppsV1().Deployments("pol-ml").Create(ctx, good, metav1.CreateOptions{}); err != nil {
		t.Errorf("compliant Deployment refused: %v", err)
	}
	cj := job("pol-ml", "nightly", podSpec(nil, []string{"nvidia.com/gpu", "1", "cpu", "1", "memory", "1Gi"}, nil, true))
	cron := cronJob(cj)
	_, err = cs.BatchV1().CronJobs("pol-ml").Create(ctx, cron, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "'gpuwise-cronjobs'") || !strings.Contains(err.Error(), "gpuwise gpu-pod-cost-labels") {
		t.Errorf("CronJob without cost labels: %v; want refused by gpuwise-cronjobs, gpu-pod-cost-labels", err)
	}
}

// checkOldRole: with the ClusterRole as it was before the admission reads
// were added (without the rules of the API group dropped: the policy
// lists), the audit is still written, every rule's status is unknown, a
// note names the refused read and the role, and the exit code is 6.
func checkOldRole(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, cfg *rest.Config, dropped, wantNote string) {
	var role rbacv1.ClusterRole
	readYAML(t, "clusterrole.yaml", 0, &role)
	name := "gpuwise-old-policies"
	role.Name = name
	role.Rules = slices.DeleteFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.APIGroups, dropped) })
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer cs.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	kc := serviceAccountKubeconfig(ctx, t, cs, cfg, name, false)
	b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: "gpuwise"}}}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), b.Name, metav1.DeleteOptions{})
	var out, errOut string
	var code int
	waitFor(t, "the binding to take effect", 20*time.Second, func() (bool, string) {
		out, errOut, code = execute(t, "audit", "--kubeconfig", kc, "-o", "json")
		return code == cli.ExitPartial && strings.Contains(out, wantNote), errOut
	})
	var res struct {
		Findings  []json.RawMessage
		Admission struct {
			Rules []struct{ Status string }
			Notes []string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Admission.Rules {
		if r.Status != "unknown" {
			t.Errorf("status %s without the policy reads, want unknown", r.Status)
		}
	}
	notes := strings.Join(res.Admission.Notes, "\n")
	if len(res.Findings) == 0 || !strings.Contains(notes, wantNote) || !strings.Contains(notes, "deploy/rbac/clusterrole.yaml") {
		t.Errorf("findings %d, notes %q: want the audit written and the refused list and the role named", len(res.Findings), notes)
	}
}

// checkUpdates: in deny mode, an update that leaves a non-compliant
// Deployment's spec alone (labels, scale) passes, so controllers and
// people can still touch what was admitted before the rule; an update of
// its spec that keeps the fault is refused.
func checkUpdates(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	patch := func(p string) error {
		_, err := cs.AppsV1().Deployments("pol-ml").Patch(ctx, "legacy", types.MergePatchType, []byte(p), metav1.PatchOptions{})
		return err
	}
	if err := patch(`{"metadata":{"labels":{"touched":"yes"}}}`); err != nil {
		t.Errorf("label-only update of a Deployment admitted before the rule: %v", err)
	}
	if err := patch(`{"spec":{"template":{"metadata":{"annotations":{"restartedAt":"now"}}}}}`); err == nil ||
		!strings.Contains(err.Error(), "'gpuwise-workloads'") || !strings.Contains(err.Error(), "gpuwise GW003 gpu-container-limits") {
		t.Errorf("spec update keeping the fault: %v; want refused by gpuwise-workloads, GW003", err)
	}
}

// checkMutation installs the mutating policy: a GPU pod without the
// toleration is admitted (the deny-mode GW004 rule sees it after the
// mutation) and carries the toleration; nothing else in it changed.
func checkMutation(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, dyn dynamic.Interface) {
	dir := generatePolicies(t, "--engine", "native", "--mode", "deny")
	applyDir(ctx, t, dyn, onlyFile(t, filepath.Join(dir, "policy", "native"), "gpuwise-gw004-add-gpu-toleration.yaml"))
	p := probe()
	p.Name = "mutated"
	var got *corev1.Pod
	waitFor(t, "the mutating policy to add the toleration", 30*time.Second, func() (bool, string) {
		var err error
		got, err = cs.CoreV1().Pods("pol-ml").Create(ctx, p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil, fmt.Sprint(err)
	})
	got, err := cs.CoreV1().Pods("pol-ml").Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("GPU pod without the toleration refused despite the mutating policy: %v", err)
	}
	want := []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	var gpuTols []corev1.Toleration
	for _, tol := range got.Spec.Tolerations {
		if tol.Key == "nvidia.com/gpu" {
			gpuTols = append(gpuTols, tol)
		}
	}
	if diff := cmp.Diff(want, gpuTols); diff != "" {
		t.Errorf("mutated pod's GPU tolerations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(p.Spec.Containers[0].Resources, got.Spec.Containers[0].Resources); diff != "" && !strings.Contains(diff, "Requests") {
		t.Errorf("the mutation changed the resources: %s", diff)
	}
	if got.Labels["team"] != "ml" || len(got.Labels) != 1 {
		t.Errorf("the mutation changed the labels: %v", got.Labels)
	}
	// A pod that tolerates already is left alone: no duplicate.
	p2 := probe()
	p2.Name = "already-tolerating"
	p2.Spec.Tolerations = want
	got2, err := cs.CoreV1().Pods("pol-ml").Create(ctx, p2, metav1.CreateOptions{})
	if err != nil || len(got2.Spec.Tolerations) < 1 || countKey(got2.Spec.Tolerations, "nvidia.com/gpu") != 1 {
		t.Errorf("tolerating pod: %v, tolerations %v; want exactly one GPU toleration", err, got2.Spec.Tolerations)
	}
	// A pod without a GPU is left alone too (the GW002 rule would refuse
	// the toleration the mutation must not give it).
	p3 := probe()
	p3.Name = "no-gpu"
	delete(p3.Spec.Containers[0].Resources.Limits, "nvidia.com/gpu")
	delete(p3.Spec.Containers[0].Resources.Requests, "nvidia.com/gpu")
	got3, err := cs.CoreV1().Pods("pol-ml").Create(ctx, p3, metav1.CreateOptions{})
	if err != nil || countKey(got3.Spec.Tolerations, "nvidia.com/gpu") != 0 {
		t.Errorf("pod without a GPU: %v, tolerations %v; want no GPU toleration added", err, got3.Spec.Tolerations)
	}
}

func countKey(tols []corev1.Toleration, key string) int {
	n := 0
	for _, t := range tols {
		if t.Key == key {
			n++
		}
	}
	return n
}

// onlyFile copies one generated file into its own directory.
func onlyFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// fixturePods reads the shared pod fixtures.
func fixturePods(t *testing.T) []corev1.Pod {
	t.Helper()
	b, err := os.ReadFile(fixturePodsFile)
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

func mustQ(s string) resource.Quantity { return resource.MustParse(s) }

func cronJob(j *batchv1.Job) *batchv1.CronJob {
	return &batchv1.CronJob{ObjectMeta: j.ObjectMeta, Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *",
		JobTemplate: batchv1.JobTemplateSpec{Spec: j.Spec}}}
}

// checkFlipOne: from deny mode, `rollout.sh warn gpu-container-limits`
// moves that rule alone: a pod breaking only GW003 is admitted with its
// warning, a pod breaking GW004 is still refused, and the audit reads
// GW003 as warn and the others as deny; flipping it back restores deny.
func checkFlipOne(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, cfg *rest.Config, dir, reader string) {
	noLimits := probe()
	noLimits.Name = "no-memory-limit"
	noLimits.Spec.Tolerations = []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	delete(noLimits.Spec.Containers[0].Resources.Limits, "memory")
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	w := &warnings{}
	wc := rest.CopyConfig(cfg)
	wc.WarningHandler = w
	wcs := kubernetes.NewForConfigOrDie(wc)
	rollout(t, cfg, dir, "warn", "gpu-container-limits")
	waitFor(t, "GW003 to leave deny mode", 30*time.Second, func() (bool, string) {
		w.take()
		_, err := wcs.CoreV1().Pods("pol-ml").Create(ctx, noLimits.DeepCopy(), dry)
		return err == nil, fmt.Sprint(err)
	})
	if got := rulesIn(strings.Join(w.take(), "\n")); !slices.Equal(got, []string{"gpu-container-limits"}) {
		t.Errorf("warnings name %v, want gpu-container-limits", got)
	}
	if _, err := cs.CoreV1().Pods("pol-ml").Create(ctx, probe(), dry); err == nil || firstRule(err.Error()) != "gpu-pod-toleration" {
		t.Errorf("pod without the toleration: %v; want still refused by GW004", err)
	}
	out, errOut, code := execute(t, "audit", "--kubeconfig", reader, "-o", "json", "--policy-settings", fixtureSettings)
	if code != cli.ExitOK {
		t.Fatalf("audit exit %d: %s", code, errOut)
	}
	var res struct {
		Admission struct {
			Rules []struct{ Rule, Status string }
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Admission.Rules {
		want := "deny"
		if r.Rule == "gpu-container-limits" {
			want = "warn"
		}
		if r.Status != want {
			t.Errorf("audit: rule %s is %s, want %s", r.Rule, r.Status, want)
		}
	}
	rollout(t, cfg, dir, "deny", "gpu-container-limits")
	waitFor(t, "GW003 to deny again", 30*time.Second, func() (bool, string) {
		_, err := cs.CoreV1().Pods("pol-ml").Create(ctx, noLimits.DeepCopy(), dry)
		return err != nil, "admitted"
	})
}

// checkParamsInformer: the native bindings are their own params, so the
// API server's params informer is over the bindings, not over every
// ConfigMap (as it was while the params were mode ConfigMaps: "informer
// started for /v1, Kind=ConfigMap" in its log). The log is up.sh's,
// beside the kubeconfig.
func checkParamsInformer(t *testing.T) {
	path := filepath.Join(filepath.Dir(os.Getenv("GPUWISE_TEST_KUBECONFIG")), "logs", "kube-apiserver.log")
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		t.Fatalf("reading the API server log %s: %v (%d bytes)", path, err, len(b))
	}
	bindings := false
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, "informer started for") {
			continue
		}
		t.Logf("API server: %s", line)
		bindings = bindings || strings.Contains(line, "informer started for admissionregistration.k8s.io/v1, Kind=ValidatingAdmissionPolicyBinding")
		if strings.Contains(line, "Kind=ConfigMap") {
			t.Errorf("the API server started an informer over ConfigMaps: %s", line)
		}
	}
	if !bindings {
		t.Errorf("no params informer over the bindings in %s: are the bindings their own params?", path)
	}
}

// checkQuantityForms sends pods as raw JSON, so that the API server gets
// the quantities as written (client-go would write them canonical), and
// checks that the native policies' string shortcuts decide as quantities
// would: every zero GPU limit is no GPU (so the GPU toleration is refused,
// GW002), a non-canonical positive one is a GPU that counts, and equal CPU
// and memory quantities written differently are equal. It is what allows
// string(q) != '0' for "> 0" (internal/policy cel.go).
func checkQuantityForms(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	pod := func(name, gpu, reqCPU, limCPU, reqMem, limMem string, labelled bool) string {
		labels := `{}`
		if labelled {
			labels = `{"team": "ml"}`
		}
		return `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "` + name + `", "labels": ` + labels + `},
			"spec": {"automountServiceAccountToken": false, "schedulerName": "gpuwise-none",
			"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
			"containers": [{"name": "main", "image": "registry.invalid/app:1", "resources": {
			"requests": {"cpu": "` + reqCPU + `", "memory": "` + reqMem + `"},
			"limits": {"nvidia.com/gpu": "` + gpu + `", "cpu": "` + limCPU + `", "memory": "` + limMem + `"}}}]}}`
	}
	cases := []struct {
		name, body, refused string
	}{
		{"zero-m", pod("q-zero-m", "0m", "1", "1", "1Gi", "1Gi", true), "non-gpu-pod-tolerates-gpu-taint"},
		{"zero-k", pod("q-zero-k", "0k", "1", "1", "1Gi", "1Gi", true), "non-gpu-pod-tolerates-gpu-taint"},
		{"zero-ki", pod("q-zero-ki", "0Ki", "1", "1", "1Gi", "1Gi", true), "non-gpu-pod-tolerates-gpu-taint"},
		{"zero-e3", pod("q-zero-e3", "0e3", "1", "1", "1Gi", "1Gi", true), "non-gpu-pod-tolerates-gpu-taint"},
		{"zeros", pod("q-zeros", "000", "1", "1", "1Gi", "1Gi", true), "non-gpu-pod-tolerates-gpu-taint"},
		{"zero-dot", pod("q-zero-dot", "0.0", "1", "1", "1Gi", "1Gi", true), "non-gpu-pod-tolerates-gpu-taint"},
		{"one as 1000m", pod("q-one-milli", "1000m", "1", "1", "1Gi", "1Gi", true), ""},
		{"one as 1000m, no label", pod("q-one-nolabel", "1000m", "1", "1", "1Gi", "1Gi", false), "gpu-pod-cost-labels"},
		{"three as 3000m over the cap of 2", pod("q-three", "3000m", "1", "1", "1Gi", "1Gi", true), "max-gpus-per-pod"},
		{"cpu 1000m = 1, memory 1Gi = 1073741824", pod("q-equal", "1", "1000m", "1", "1Gi", "1073741824", true), ""},
		{"cpu 0.5 = 500m", pod("q-half", "1", "0.5", "500m", "1Gi", "1Gi", true), ""},
		{"cpu 500m != 1", pod("q-unequal", "1", "500m", "1", "1Gi", "1Gi", true), "gpu-container-limits"},
	}
	for _, tc := range cases {
		err := cs.CoreV1().RESTClient().Post().Namespace("pol-ml").Resource("pods").
			SetHeader("Content-Type", "application/json").Body([]byte(tc.body)).Do(ctx).Error()
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.refused != "" && err == nil:
			t.Errorf("%s: admitted; want refused by %s", tc.name, tc.refused)
		case tc.refused != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'gpuwise-") ||
			!slices.Equal(rulesIn(err.Error()), []string{tc.refused})):
			t.Errorf("%s: want a 422 from a gpuwise policy naming only %s, got %v", tc.name, tc.refused, err)
		}
	}
	for _, tc := range cases {
		var name struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if json.Unmarshal([]byte(tc.body), &name) == nil {
			cs.CoreV1().Pods("pol-ml").Delete(ctx, name.Metadata.Name, metav1.DeleteOptions{})
		}
	}
}
