//go:build integration

package kube

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

const gi = int64(1) << 30

// The rollout `gpuwise generate resources` writes must work against the
// real apiserver: wave 1's apply.sh (kubectl) changes exactly its
// workloads, check.sh reads and changes nothing, and rollback.sh puts
// every object back as it was (issue 29 item 5).
func TestRolloutWaveAndRollbackAgainstTheRealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, _ := admin(t)
	const ns = "rollout"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})

	// A Deployment with no CPU limit, a suspended CronJob, and a
	// StatefulSet on a whole GPU that moves to a MIG slice; no replicas,
	// so only the objects are in play.
	api := deployment(ns, "api", 0, podSpec([]string{"cpu", "4", "memory", "16Gi"}, []string{"memory", "16Gi"}, nil, false))
	suspend := true
	cronSpec := podSpec([]string{"cpu", "8", "memory", "32Gi"}, []string{"cpu", "8", "memory", "32Gi"}, nil, false)
	cronSpec.RestartPolicy = corev1.RestartPolicyNever
	cron := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly"}, Spec: batchv1.CronJobSpec{
		Schedule: "0 3 * * *", Suspend: &suspend,
		JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: cronSpec}}}}}
	zero := int32(0)
	gpuSpec := podSpec([]string{"cpu", "2", "memory", "8Gi", "nvidia.com/gpu", "1"}, []string{"cpu", "2", "memory", "8Gi", "nvidia.com/gpu", "1"}, nil, true)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "chat"}, Spec: appsv1.StatefulSetSpec{Replicas: &zero,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "chat"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "chat"}}, Spec: gpuSpec}}}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, api, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.BatchV1().CronJobs(ns).Create(ctx, cron, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := rolloutResources(ctx, t, cs, ns)

	// The recommendations for them, with the objects' values as current.
	recs := &rightsize.Result{
		Containers: []rightsize.ContainerRec{
			{Workload: ns + "/Deployment/api", Namespace: ns, OwnerKind: "Deployment", OwnerName: "api", Container: "main",
				CurrentCPUMilli: 4000, CurrentMemoryBytes: 16 * gi, CurrentMemoryLimit: 16 * gi, CPUMilli: 3900, MemoryBytes: 15 * gi, MonthlySavingsUSD: 10},
			{Workload: ns + "/CronJob/nightly", Namespace: ns, OwnerKind: "CronJob", OwnerName: "nightly", Container: "main",
				CurrentCPUMilli: 8000, CurrentCPULimit: 8000, CurrentMemoryBytes: 32 * gi, CurrentMemoryLimit: 32 * gi, CPUMilli: 1500, CPULimitMilli: 1500, MemoryBytes: 6 * gi, MonthlySavingsUSD: 30},
			{Workload: ns + "/StatefulSet/chat", Namespace: ns, OwnerKind: "StatefulSet", OwnerName: "chat", Container: "main",
				CurrentCPUMilli: 2000, CurrentCPULimit: 2000, CurrentMemoryBytes: 8 * gi, CurrentMemoryLimit: 8 * gi, CPUMilli: 500, CPULimitMilli: 500, MemoryBytes: 4 * gi},
		},
		GPU: []rightsize.GPURec{{Workload: ns + "/StatefulSet/chat", Namespace: ns, OwnerKind: "StatefulSet", OwnerName: "chat", Container: "main",
			GPUsPerPod: 1, CurrentResource: "nvidia.com/gpu", Action: rightsize.UseMIG, Profile: "1g.10gb", Resource: "nvidia.com/mig-1g.10gb", MonthlySavingsUSD: 500}},
	}
	led := generate.RolloutLedger{TotalCents: 4_001, Risk: map[string]string{ns + "/StatefulSet/chat": "medium"},
		Actions: []generate.LedgerAction{{ID: "A1", Cents: 4_001, Workloads: []string{ns + "/Deployment/api", ns + "/CronJob/nightly"}}}}
	files, _, err := generate.RecommendedRollout(recs, nil, led, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := generate.WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}

	// Wave 1 is the two requests-only changes, smallest first.
	script(t, dir, "rollout/wave-01/apply.sh")
	after := rolloutResources(ctx, t, cs, ns)
	if diff := cmp.Diff(before["statefulset/chat"], after["statefulset/chat"]); diff != "" {
		t.Errorf("wave 1 changed the StatefulSet of wave 2 (-before +after):\n%s", diff)
	}
	wantAPI := map[string]string{"requests.cpu": "3900m", "requests.memory": "15Gi", "limits.memory": "15Gi"}
	wantCron := map[string]string{"requests.cpu": "1500m", "limits.cpu": "1500m", "requests.memory": "6Gi", "limits.memory": "6Gi"}
	if diff := cmp.Diff(wantAPI, after["deployment/api"]); diff != "" {
		t.Errorf("Deployment after wave 1 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantCron, after["cronjob/nightly"]); diff != "" {
		t.Errorf("CronJob after wave 1 (-want +got):\n%s", diff)
	}

	// apply.sh recorded its two workloads in the wave history.
	if applied := waveHistory(t, dir); len(applied) != 2 || applied[ns+"/Deployment/api"] == "" || applied[ns+"/CronJob/nightly"] == "" {
		t.Errorf("wave history after wave 1: %v, want api and nightly applied", applied)
	}

	// check.sh only reads: no red flag on objects without pods, and no
	// object's spec changes (generation kept; controllers still write
	// status).
	versions := generations(ctx, t, cs, ns)
	if out := script(t, dir, "rollout/wave-01/check.sh"); !strings.Contains(out, "no red flag") {
		t.Errorf("check.sh: %s", out)
	}
	if diff := cmp.Diff(versions, generations(ctx, t, cs, ns)); diff != "" {
		t.Errorf("check.sh changed objects (-before +after generation):\n%s", diff)
	}

	// Wave 2's GPU swap, then both rollbacks, last wave first.
	script(t, dir, "rollout/wave-02/apply.sh")
	if got := rolloutResources(ctx, t, cs, ns)["statefulset/chat"]; got["requests.nvidia.com/mig-1g.10gb"] != "1" || got["requests.nvidia.com/gpu"] != "" {
		t.Errorf("StatefulSet after wave 2: %v, want the MIG slice in place of the GPU", got)
	}
	script(t, dir, "rollout/wave-02/rollback.sh")
	script(t, dir, "rollout/wave-01/rollback.sh")
	if diff := cmp.Diff(before, rolloutResources(ctx, t, cs, ns)); diff != "" {
		t.Errorf("objects after the rollbacks (-before +after):\n%s", diff)
	}
	if applied := waveHistory(t, dir); len(applied) != 0 {
		t.Errorf("wave history after the rollbacks: %v, want nothing applied", applied)
	}
}

// waveHistory is what the scripts recorded under dir.
func waveHistory(t *testing.T, dir string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "rollout", "history.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	applied, err := generate.ParseWaveHistory("history.tsv", data)
	if err != nil {
		t.Fatal(err)
	}
	return applied
}

// script runs one generated script with the test cluster's kubeconfig
// and the control plane's kubectl.
func script(t *testing.T, dir, path string) string {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(dir, path))
	cmd.Env = append(os.Environ(), "KUBECONFIG="+os.Getenv("GPUWISE_TEST_KUBECONFIG"), "KUBECTL="+kubectlPath(t), "TIMEOUT=30s")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, out)
	}
	return string(out)
}

// kubectlPath is $KUBECTL, the control plane's build (hack/tools), or the
// one on PATH.
func kubectlPath(t *testing.T) string {
	t.Helper()
	if k := os.Getenv("KUBECTL"); k != "" {
		return k
	}
	cache := os.Getenv("GPUWISE_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "gpuwise")
	}
	if k := filepath.Join(cache, "tools", "bin", "kubectl"); fileExists(k) {
		return k
	}
	k, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatal("no kubectl: set KUBECTL, or build it (hack/tools/build.sh kubectl)")
	}
	return k
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// rolloutResources is the "main" container's requests and limits of each
// object, by "kind/name".
func rolloutResources(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, ns string) map[string]map[string]string {
	t.Helper()
	d, err := cs.AppsV1().Deployments(ns).Get(ctx, "api", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.BatchV1().CronJobs(ns).Get(ctx, "nightly", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := cs.AppsV1().StatefulSets(ns).Get(ctx, "chat", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]map[string]string{
		"deployment/api":   flat(d.Spec.Template.Spec.Containers[0].Resources),
		"cronjob/nightly":  flat(c.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Resources),
		"statefulset/chat": flat(s.Spec.Template.Spec.Containers[0].Resources),
	}
}

func flat(r corev1.ResourceRequirements) map[string]string {
	out := map[string]string{}
	for n, q := range r.Requests {
		out["requests."+string(n)] = q.String()
	}
	for n, q := range r.Limits {
		out["limits."+string(n)] = q.String()
	}
	return out
}

func generations(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, ns string) []int64 {
	t.Helper()
	d, err1 := cs.AppsV1().Deployments(ns).Get(ctx, "api", metav1.GetOptions{})
	c, err2 := cs.BatchV1().CronJobs(ns).Get(ctx, "nightly", metav1.GetOptions{})
	s, err3 := cs.AppsV1().StatefulSets(ns).Get(ctx, "chat", metav1.GetOptions{})
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return []int64{d.Generation, c.Generation, s.Generation}
}
