package generate

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/yaml"
)

var quantityEqual = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func podSpec(containers ...corev1.Container) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{
			Containers:  containers,
			Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		},
	}
}

func container(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{
		Name: name, Image: "registry.example/" + name + ":1.0",
		Env:       []corev1.EnvVar{{Name: "MODE", Value: "prod"}},
		Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits},
	}
}

// TestPatchesApply decodes each generated patch strictly into its upstream
// type and applies it with the real strategic-merge-patch code to a
// realistic live object, then checks the whole result: the listed
// resources changed, old GPU keys gone, everything else as it was.
func TestPatchesApply(t *testing.T) {
	t.Parallel()
	files, err := Patches(samplePatches())
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]byte{}
	for _, f := range files {
		byPath[f.Path] = f.Data
	}
	labels := map[string]string{"app": "x"}

	deploy := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "chat-api", Namespace: "ml-serving"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: podSpec(
				container("model", rl("cpu", "4", "memory", "16Gi", "nvidia.com/gpu", "1"), rl("memory", "16Gi", "nvidia.com/gpu", "1")),
				container("sidecar", rl("cpu", "100m", "memory", "256Mi"), rl("memory", "256Mi")),
				container("log-shipper", rl("cpu", "50m", "memory", "100Mi"), nil),
			),
		},
	}
	wantDeploy := deploy.DeepCopy()
	c := wantDeploy.Spec.Template.Spec.Containers
	c[0].Resources = corev1.ResourceRequirements{
		Requests: rl("cpu", "250m", "memory", "1536Mi", "nvidia.com/mig-1g.10gb", "1"),
		Limits:   rl("memory", "2Gi", "nvidia.com/mig-1g.10gb", "1"),
	}
	c[1].Resources = corev1.ResourceRequirements{Requests: rl("cpu", "10m", "memory", "64Mi"), Limits: rl("memory", "128Mi")}
	gotDeploy := &appsv1.Deployment{}
	applyPatch(t, byPath["patches/ml-serving/deployment-chat-api.yaml"], deploy, gotDeploy)
	if diff := cmp.Diff(wantDeploy, gotDeploy, quantityEqual); diff != "" {
		t.Errorf("Deployment after patch (-want +got):\n%s", diff)
	}

	cron := &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "nightly-embed", Namespace: "data"},
		Spec: batchv1.CronJobSpec{
			Schedule: "0 2 * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
				Template: podSpec(container("embed", rl("cpu", "4", "memory", "8Gi"), rl("cpu", "4", "memory", "8Gi"))),
			}},
		},
	}
	wantCron := cron.DeepCopy()
	wantCron.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: rl("cpu", "1500m", "memory", "6Gi"), Limits: rl("memory", "6Gi"),
	}
	gotCron := &batchv1.CronJob{}
	applyPatch(t, byPath["patches/data/cronjob-nightly-embed.yaml"], cron, gotCron)
	if diff := cmp.Diff(wantCron, gotCron, quantityEqual); diff != "" {
		t.Errorf("CronJob after patch (-want +got):\n%s", diff)
	}

	sts := &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "vector-db", Namespace: "ml-serving"},
		Spec: appsv1.StatefulSetSpec{
			ServiceName: "vector-db",
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template:    podSpec(container("db", rl("cpu", "8", "memory", "32Gi"), rl("cpu", "8", "memory", "32Gi"))),
		},
	}
	wantSts := sts.DeepCopy()
	wantSts.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: rl("cpu", "2", "memory", "12Gi"), Limits: rl("cpu", "4", "memory", "12Gi"),
	}
	gotSts := &appsv1.StatefulSet{}
	applyPatch(t, byPath["patches/ml-serving/statefulset-vector-db.yaml"], sts, gotSts)
	if diff := cmp.Diff(wantSts, gotSts, quantityEqual); diff != "" {
		t.Errorf("StatefulSet after patch (-want +got):\n%s", diff)
	}
}

// applyPatch decodes patch strictly into a value of live's type (unknown
// fields are errors), applies it to live as a strategic merge patch and
// decodes the result into out.
func applyPatch[T any](t *testing.T, patch []byte, live, out *T) {
	t.Helper()
	if patch == nil {
		t.Fatal("patch file not generated")
	}
	var strict T
	if err := yaml.UnmarshalStrict(patch, &strict); err != nil {
		t.Fatalf("patch does not decode strictly into %T: %v\n%s", strict, err, patch)
	}
	patchJSON, err := yaml.YAMLToJSON(patch)
	if err != nil {
		t.Fatal(err)
	}
	liveJSON, err := json.Marshal(live)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := strategicpatch.StrategicMergePatch(liveJSON, patchJSON, *live)
	if err != nil {
		t.Fatalf("StrategicMergePatch: %v", err)
	}
	if err := json.Unmarshal(merged, out); err != nil {
		t.Fatal(err)
	}
}

// TestPatchDaemonSetAndCronJob checks the kinds the golden file does not
// show decode strictly into their upstream types.
func TestPatchDaemonSetAndCronJob(t *testing.T) {
	t.Parallel()
	for _, kind := range []WorkloadKind{DaemonSet, CronJob} {
		files, err := Patches([]ResourcePatch{{
			Workload:   Workload{Kind: kind, Namespace: "ops", Name: "agent"},
			Containers: []ContainerResources{{Name: "agent", CPURequestMilli: 20, MemoryRequestBytes: 64 * mi}},
		}})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		var dst any = &appsv1.DaemonSet{}
		if kind == CronJob {
			dst = &batchv1.CronJob{}
		}
		if err := yaml.UnmarshalStrict(files[0].Data, dst); err != nil {
			t.Errorf("%s patch does not decode strictly: %v", kind, err)
		}
	}
}

// A Job's pod template is immutable once the Job exists (the apiserver
// rejected 7 of 47 generated patches with "spec.template: field is
// immutable"): ForNextRun keeps every other patch and turns a Job's into a
// note naming what to set for its next run.
func TestForNextRun(t *testing.T) {
	t.Parallel()
	in := []ResourcePatch{
		{Workload: Workload{Kind: CronJob, Namespace: "batch", Name: "nightly"}, Containers: []ContainerResources{{Name: "etl", CPURequestMilli: 500}}},
		{Workload: Workload{Kind: Job, Namespace: "ml", Name: "train-once"}, Containers: []ContainerResources{
			{Name: "trainer", CPURequestMilli: 2500, CPULimitMilli: 2500, MemoryRequestBytes: 6 * gi, MemoryLimitBytes: 6 * gi,
				GPU: &GPUChange{Resource: "nvidia.com/mig-3g.40gb", Count: 1, Remove: []string{"nvidia.com/gpu"}}},
		}},
	}
	patches, notes := ForNextRun(in)
	if len(patches) != 1 || patches[0].Workload.Kind != CronJob {
		t.Errorf("patches %v, want only the CronJob's", patches)
	}
	want := "Job ml/train-once: not patched, since a Job's pod template cannot change once the Job exists (spec.template is immutable); " +
		"set these in its manifest for the next run: container trainer: requests.cpu 2500m, requests.memory 6Gi, limits.cpu 2500m, " +
		"limits.memory 6Gi, nvidia.com/mig-3g.40gb 1 in requests and limits, remove nvidia.com/gpu"
	if diff := cmp.Diff([]string{want}, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if _, err := Patches(patches); err != nil {
		t.Errorf("the remaining patches do not generate: %v", err)
	}
}
