//go:build integration

package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/generate"
)

// The patches `gpuwise generate` writes must be ones the real apiserver
// accepts. A Job's spec.template is immutable once the Job exists (7 of 47
// generated patches were refused with "field is immutable"), so a CronJob's
// change goes through its jobTemplate, and a bare Job gets a note for its
// next run instead of a patch.
func TestGeneratedPatchesAgainstTheRealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, _ := admin(t)
	const ns = "patches"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})

	// A running (unsuspended) Job whose pod stays Pending, and a suspended
	// CronJob, both with the same container.
	spec := podSpec([]string{"cpu", "4", "memory", "16Gi"}, []string{"memory", "16Gi"}, map[string]string{"gpuwise-test": "nowhere"}, false)
	spec.RestartPolicy = corev1.RestartPolicyNever
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job(ns, "train-once", spec), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	suspend := true
	cron := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly"}, Spec: batchv1.CronJobSpec{
		Schedule: "0 3 * * *", Suspend: &suspend,
		JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}}}
	if _, err := cs.BatchV1().CronJobs(ns).Create(ctx, cron, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	change := []generate.ContainerResources{{Name: "main", CPURequestMilli: 1500, CPULimitMilli: 1500, MemoryRequestBytes: 6 << 30, MemoryLimitBytes: 6 << 30}}
	patches, notes := generate.ForNextRun([]generate.ResourcePatch{
		{Workload: generate.Workload{Kind: generate.CronJob, Namespace: ns, Name: "nightly"}, Evidence: "test", Containers: change},
		{Workload: generate.Workload{Kind: generate.Job, Namespace: ns, Name: "train-once"}, Evidence: "test", Containers: change},
	})
	if len(notes) != 1 || !strings.Contains(notes[0], "Job patches/train-once: not patched") || !strings.Contains(notes[0], "requests.cpu 1500m") {
		t.Errorf("notes %q, want one for the bare Job naming its next-run resources", notes)
	}
	files, err := generate.Patches(patches)
	if err != nil || len(files) != 1 {
		t.Fatalf("Patches: %d files, %v; want the CronJob's", len(files), err)
	}
	body, err := yaml.YAMLToJSON(files[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cs.BatchV1().CronJobs(ns).Patch(ctx, "nightly", types.StrategicMergePatchType, body, metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("the apiserver refused the generated CronJob patch: %v\n%s", err, files[0].Data)
	}
	res := got.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Resources
	if !res.Requests.Cpu().Equal(resource.MustParse("1500m")) || !res.Limits.Cpu().Equal(resource.MustParse("1500m")) ||
		!res.Limits.Memory().Equal(resource.MustParse("6Gi")) {
		t.Errorf("CronJob resources after the patch: %+v", res)
	}

	// Why the Job gets a note: the same change as a Job patch is refused.
	jobPatch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"1500m"}}}]}}}}`)
	_, err = cs.BatchV1().Jobs(ns).Patch(ctx, "train-once", types.StrategicMergePatchType, jobPatch, metav1.PatchOptions{})
	if err == nil || !strings.Contains(err.Error(), "field is immutable") {
		t.Errorf("patching a running Job's template: %v; want the apiserver's \"field is immutable\"", err)
	}
}
