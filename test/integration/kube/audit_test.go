//go:build integration

package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

func TestAuditAndCollectAgainstRealControlPlane(t *testing.T) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cs, cfg := admin(t)
	create(ctx, t, cs)
	waitScheduled(ctx, t, cs)
	t.Logf("scheduled everything %.1fs after the first create", time.Since(began).Seconds())

	reader := serviceAccountKubeconfig(ctx, t, cs, cfg, "gpuwise", true)
	t.Run("audit", func(t *testing.T) { checkAudit(t, reader) })
	t.Run("collect", func(t *testing.T) { checkCollect(t, reader) })
	t.Run("report", func(t *testing.T) { checkLiveReport(t, reader) })
	t.Run("recommend", func(t *testing.T) { checkLiveRecommend(t, reader) })
	t.Run("plan", func(t *testing.T) { checkLivePlan(t, reader) })
	t.Run("advise", func(t *testing.T) { checkLiveAdvise(t, reader) })
	t.Run("forbidden without the ClusterRole", func(t *testing.T) {
		unbound := serviceAccountKubeconfig(ctx, t, cs, cfg, "nobody", false)
		var out, errb bytes.Buffer
		code := cli.Execute([]string{"collect", "--kubeconfig", unbound, "-o", filepath.Join(t.TempDir(), "s.json.gz")},
			cli.Streams{Out: &out, Err: &errb})
		if code != cli.ExitDenied || !strings.Contains(errb.String(), `forbids "list" on nodes`) ||
			!strings.Contains(errb.String(), "deploy/rbac/clusterrole.yaml") {
			t.Errorf("exit %d, want %d naming the verb, resource and role: %s", code, cli.ExitDenied, errb.String())
		}
	})
	t.Logf("whole test %.1fs", time.Since(began).Seconds())
}

// checkLiveReport runs `gpuwise report` on the live inventory: it must
// price the cluster, reconcile, and show every held GPU-hour as unmeasured
// (no usage source), never as idle.
func checkLiveReport(t *testing.T, kubeconfig string) {
	out, errOut, code := execute(t, "report", "--kubeconfig", kubeconfig, "-o", "json", "--window", "1h")
	if code != cli.ExitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	var r cost.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if err := r.Reconcile(); err != nil {
		t.Error(err)
	}
	h := r.Totals.GPUHours
	if h.Allocated <= 0 || h.Unmeasured != h.Allocated || h.Idle != 0 || r.Totals.GPUUtilization != nil {
		t.Errorf("live report without usage: allocated %v, unmeasured %v, idle %v, utilization %v; want all allocated unmeasured and utilization n/a",
			h.Allocated, h.Unmeasured, h.Idle, r.Totals.GPUUtilization)
	}
	if r.Totals.GPUs == 0 || r.Totals.NodeCost <= 0 {
		t.Errorf("live report: %d GPUs, node cost $%v; want a priced GPU inventory", r.Totals.GPUs, r.Totals.NodeCost)
	}
	// Nothing measured: utilization of provisioned is n/a, not 0%, and the
	// note says so in words (it read "0.0 of 0.0 allocated GPU-hours
	// (100.0%) have no usage data" minutes after the pods started).
	if u := r.Totals.GPUUtilizationOfProvisioned; u != nil {
		t.Errorf("live report: utilization of provisioned %v, want null (nothing measured)", *u)
	}
	var noted bool
	for _, n := range r.Notes {
		noted = noted || strings.Contains(n.Text, "no allocated GPU-hour has usage data")
		if strings.Contains(n.Text, "0.0 of 0.0") {
			t.Errorf("live report note %q", n.Text)
		}
	}
	if !noted {
		t.Errorf("live report notes %v: none says no allocated GPU-hour has usage data", r.Notes)
	}
}

// checkLiveRecommend runs `gpuwise recommend` on the live inventory with
// the read-only role: without usage data no workload gets a GPU shape or
// a CPU/memory request, and every GPU workload is listed as skipped with
// its reason, never guessed (multi-GPU pods keep whole GPUs whatever
// their usage).
func checkLiveRecommend(t *testing.T, kubeconfig string) {
	out, errOut, code := execute(t, "recommend", "--kubeconfig", kubeconfig, "-o", "json", "--window", "1h")
	if code != cli.ExitOK {
		t.Fatalf("recommend exit %d: %s", code, errOut)
	}
	var r struct {
		GPU []struct {
			Workload, Action string
			GPUsPerPod       int `json:"gpus_per_pod"`
		} `json:"gpu"`
		Containers []json.RawMessage `json:"containers"`
		Skipped    []struct {
			Workload, Kind, Reason string
		} `json:"skipped"`
		MonthlySavingsUSD float64 `json:"monthly_savings_usd"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Containers) != 0 || r.MonthlySavingsUSD != 0 {
		t.Errorf("recommendations without usage data: %d containers, $%v", len(r.Containers), r.MonthlySavingsUSD)
	}
	// The one GPU decision that needs no data: multi-GPU pods keep whole GPUs.
	for _, g := range r.GPU {
		if g.Action != "keep-whole" || g.GPUsPerPod < 2 {
			t.Errorf("GPU recommendation without usage data: %+v", g)
		}
	}
	gpuSkips := map[string]string{}
	for _, s := range r.Skipped {
		if s.Kind == "gpu" {
			gpuSkips[s.Workload] = s.Reason
		}
	}
	for _, w := range []string{"ml/Deployment/serve", "team-notebooks/Deployment/nb"} {
		if reason, ok := gpuSkips[w]; !ok || reason == "" {
			t.Errorf("GPU workload %s not skipped with a reason (skipped: %v)", w, gpuSkips)
		}
	}
}

// checkLivePlan runs `gpuwise plan` on the live inventory: a consolidation
// plan of the real scheduler's placements, with utilization unknown (no
// usage source) rather than 0%.
func checkLivePlan(t *testing.T, kubeconfig string) {
	out, errOut, code := execute(t, "plan", "--kubeconfig", kubeconfig, "-o", "json", "--window", "1h")
	if code != cli.ExitOK {
		t.Fatalf("plan exit %d: %s", code, errOut)
	}
	var pl struct {
		Before, After struct {
			Nodes, GPUs int
			Utilization *float64 `json:"utilization"`
			Workloads   int      `json:"workloads"`
		}
		Unplaced []json.RawMessage `json:"unplaced"`
	}
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatal(err)
	}
	if pl.Before.GPUs == 0 || pl.Before.Workloads == 0 || pl.After.Nodes > pl.Before.Nodes {
		t.Errorf("live plan: before %+v, after %+v", pl.Before, pl.After)
	}
	if pl.Before.Utilization != nil || pl.After.Utilization != nil {
		t.Errorf("live plan without usage data shows utilization %v → %v, want null", pl.Before.Utilization, pl.After.Utilization)
	}
	if len(pl.Unplaced) != 0 {
		t.Errorf("plan leaves %d running pods unplaced: %s", len(pl.Unplaced), out)
	}
}

// checkLiveAdvise runs `gpuwise advise` on the live inventory with the
// read-only role: without usage data the levers that need it (right-size,
// shape) count nothing and list every GPU workload with the reason; the
// ledger still adds up, the bridge to the report adds up, and the metrics
// that need usage say n/a rather than 0%.
func checkLiveAdvise(t *testing.T, kubeconfig string) {
	out, errOut, code := execute(t, "advise", "--kubeconfig", kubeconfig, "-o", "json", "--window", "1h")
	if code != cli.ExitOK {
		t.Fatalf("advise exit %d: %s", code, errOut)
	}
	var l ledger.Ledger
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	var sum ledger.Cents
	for _, a := range l.Actions {
		if a.Lever != ledger.LeverConsolidate {
			t.Errorf("action %s (%s) without usage data", a.ID, a.Key)
		}
		sum += ledger.CentsOf(a.SavingUSDMonth)
	}
	if sum != ledger.CentsOf(l.BeforeUSDMonth)-ledger.CentsOf(l.AfterUSDMonth) || l.BeforeUSDMonth <= 0 {
		t.Errorf("actions save %s; before %v, after %v", sum, l.BeforeUSDMonth, l.AfterUSDMonth)
	}
	b := l.Bridge
	if d := ledger.CentsOf(b.ReportUSDMonth) - (ledger.CentsOf(b.LedgerBeforeUSDMonth) - ledger.CentsOf(b.PartWindowUSDMonth) + ledger.CentsOf(b.DepartedUSDMonth)); d > 1 || d < -1 {
		t.Errorf("bridge off by %d cents: %+v", d, b)
	}
	shape := map[string]string{}
	for _, n := range l.NotCounted {
		if n.Lever == ledger.LeverShape {
			shape[n.Target] = n.Reason
		}
	}
	for _, w := range []string{"ml/Deployment/serve", "team-notebooks/Deployment/nb"} {
		if reason := shape[w]; !strings.Contains(reason, "unmeasured") && !strings.Contains(reason, "no ") {
			t.Errorf("GPU workload %s not skipped with a data reason: %q (not counted: %v)", w, reason, shape)
		}
	}
	for _, m := range l.Metrics {
		if m.Name == "gpu_utilization" && (m.Value != nil || m.Status != ledger.Unavailable) {
			t.Errorf("utilization without usage data: %v %s", m.Value, m.Status)
		}
	}
}

// waitScheduled waits until every pod but ml/no-toleration is bound and
// Running (KWOK plays the kubelet), and that one is Pending because of
// the untolerated taint.
func waitScheduled(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	t.Helper()
	const wantPods = 2 + 1 + 1 + 1 + 1 + 1 // train×2, no-toleration, serve, nb, web, eval
	waitFor(t, "the real scheduler to place the pods", 90*time.Second, func() (bool, string) {
		pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var states []string
		done := 0
		for _, p := range pods.Items {
			states = append(states, fmt.Sprintf("%s/%s=%s@%s", p.Namespace, p.Name, p.Status.Phase, p.Spec.NodeName))
			if strings.HasPrefix(p.Name, "no-toleration-") {
				if unschedulable(&p) {
					done++
				}
				continue
			}
			if p.Spec.NodeName != "" && (p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodSucceeded) {
				done++
			}
		}
		return done == wantPods && len(pods.Items) == wantPods, strings.Join(states, " ")
	})
}

func unschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return p.Status.Phase == corev1.PodPending && p.Spec.NodeName == "" &&
				strings.Contains(c.Message, "untolerated taint")
		}
	}
	return false
}

// serviceAccountKubeconfig creates a ServiceAccount, binds it to the
// shipped read-only ClusterRole when bind is set, mints a token and
// writes a kubeconfig that uses it.
func serviceAccountKubeconfig(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, cfg *rest.Config, name string, bind bool) string {
	t.Helper()
	if _, err := cs.CoreV1().ServiceAccounts("gpuwise").Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "gpuwise", Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if bind {
		applyShippedRBAC(ctx, t, cs)
	}
	exp := int64(3600)
	tok, err := cs.CoreV1().ServiceAccounts("gpuwise").CreateToken(ctx, name,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s: %v", name, err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig-"+name)
	kc := map[string]any{
		"apiVersion": "v1", "kind": "Config", "current-context": "sa",
		"clusters": []any{map[string]any{"name": "test", "cluster": map[string]any{
			"server": cfg.Host, "certificate-authority-data": cfg.CAData}}},
		"users":    []any{map[string]any{"name": name, "user": map[string]any{"token": tok.Status.Token}}},
		"contexts": []any{map[string]any{"name": "sa", "context": map[string]any{"cluster": "test", "user": name}}},
	}
	b, err := yaml.Marshal(kc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// applyShippedRBAC creates deploy/rbac/*.yaml exactly as shipped (kept
// when an earlier test created them).
func applyShippedRBAC(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	t.Helper()
	var role rbacv1.ClusterRole
	readYAML(t, "clusterrole.yaml", 0, &role)
	var binding rbacv1.ClusterRoleBinding
	readYAML(t, "binding.yaml", 1, &binding)
	// Another test of the tier may have applied them already.
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func readYAML(t *testing.T, file string, doc int, into any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", "rbac", file))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(b), "\n---\n")
	if err := yaml.UnmarshalStrict([]byte(docs[doc]), into); err != nil {
		t.Fatalf("%s document %d: %v", file, doc, err)
	}
}

func execute(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Execute(args, cli.Streams{Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

func checkAudit(t *testing.T, kubeconfig string) {
	start := time.Now()
	out, errOut, code := execute(t, "audit", "--kubeconfig", kubeconfig, "-o", "json", "--fail-on", "critical")
	t.Logf("audit took %s", time.Since(start))
	if code != cli.ExitFindings {
		t.Fatalf("exit %d, want %d (critical findings): %s", code, cli.ExitFindings, errOut)
	}
	var res struct {
		Findings []struct {
			Rule, Severity, Object string
			MonthlyUSD             *float64 `json:"monthly_usd"`
			Remediation            string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got []string
	priced := map[string]bool{}
	for _, f := range res.Findings {
		key := f.Rule + " " + f.Severity + " " + f.Object
		got = append(got, key)
		priced[key] = f.MonthlyUSD != nil && *f.MonthlyUSD > 0
		if f.Remediation == "" {
			t.Errorf("%s: no remediation", key)
		}
	}
	sort.Strings(got)
	want := []string{
		"GW001 warning node/l4-ts",
		"GW002 warning Deployment shop/web",
		"GW003 warning Deployment ml/serve",
		"GW004 critical Deployment ml/no-toleration",
		"GW005 warning Deployment ml/serve",
		"GW006 warning Deployment team-notebooks/nb",
		"GW008 critical node/a100-mig",
		"GW009 warning node/l4-one",
		"GW010 info Deployment ml/train",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	for _, k := range []string{"GW002 warning Deployment shop/web", "GW006 warning Deployment team-notebooks/nb", "GW008 critical node/a100-mig"} {
		if !priced[k] {
			t.Errorf("%s: no $/month impact", k)
		}
	}
}

func checkCollect(t *testing.T, kubeconfig string) {
	path := filepath.Join(t.TempDir(), "snap.json.gz")
	start := time.Now()
	_, errOut, code := execute(t, "collect", "--kubeconfig", kubeconfig, "-o", path)
	t.Logf("collect took %s", time.Since(start))
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s, err := snapshot.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cluster.Prepare(s); err != nil {
		t.Errorf("collected snapshot does not prepare: %v", err)
	}
	type nodeRow struct {
		Model, Cloud, Capacity, Instance, Strategy string
		GPUs                                       []string
	}
	gotNodes := map[string]nodeRow{}
	for _, n := range s.Nodes {
		r := nodeRow{n.GPUModel, n.Cloud, n.Capacity, n.InstanceType, n.MIGStrategy, nil}
		for _, g := range n.GPUs {
			r.GPUs = append(r.GPUs, fmt.Sprintf("%s×%d", g.Sharing, len(g.Units)))
		}
		gotNodes[n.Name] = r
	}
	eight := []string{"exclusive×1", "exclusive×1", "exclusive×1", "exclusive×1", "exclusive×1", "exclusive×1", "exclusive×1", "exclusive×1"}
	wantNodes := map[string]nodeRow{
		"h100-0":   {"H100-80GB", "aws", "on-demand", "p5.48xlarge", "", eight},
		"h100-1":   {"H100-80GB", "aws", "on-demand", "p5.48xlarge", "", eight},
		"a100-mig": {"A100-80GB", "aws", "spot", "p4de.24xlarge", "mixed", []string{"mig×2", "mig×7"}},
		"l4-ts":    {"L4", "aws", "on-demand", "g6.xlarge", "", []string{"time-slicing×4"}},
		"l4-one":   {"L4", "aws", "on-demand", "g6.xlarge", "", []string{"time-slicing×1"}},
		"cpu-0":    {"", "aws", "on-demand", "m5.4xlarge", "", nil},
		"cpu-1":    {"", "aws", "on-demand", "m5.4xlarge", "", nil},
	}
	if diff := cmp.Diff(wantNodes, gotNodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	type podRow struct {
		Owner string
		Units int
	}
	gotPods := map[string]podRow{}
	for _, p := range s.Pods {
		if p.Namespace == "kube-system" {
			continue
		}
		name := p.Owner.Kind + "/" + p.Owner.Name
		gotPods[p.Namespace+"/"+name] = podRow{name, gotPods[p.Namespace+"/"+name].Units + len(p.GPUs)}
		for _, h := range p.GPUs {
			if h.Activity != nil {
				t.Errorf("pod %s: inventory must leave activity unmeasured", p.Key())
			}
		}
	}
	wantPods := map[string]podRow{
		"ml/Deployment/train":          {"Deployment/train", 8},
		"ml/Deployment/no-toleration":  {"Deployment/no-toleration", 0},
		"ml/Deployment/serve":          {"Deployment/serve", 1},
		"team-notebooks/Deployment/nb": {"Deployment/nb", 1},
		"shop/Deployment/web":          {"Deployment/web", 0},
		"ml/Job/eval":                  {"Job/eval", evalUnits(s)},
	}
	if diff := cmp.Diff(wantPods, gotPods); diff != "" {
		t.Errorf("pods by owner (-want +got):\n%s", diff)
	}
}

// evalUnits is 1 while the Job's pod runs and 0 once KWOK completed it.
func evalUnits(s *cluster.Snapshot) int {
	for _, p := range s.Pods {
		if p.Owner.Name == "eval" && p.End.IsZero() {
			return 1
		}
	}
	return 0
}
