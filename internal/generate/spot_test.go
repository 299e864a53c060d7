package generate

import (
	"bytes"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func spotFixture() []SpotPlacement {
	return []SpotPlacement{
		{Kind: "PyTorchJob", Namespace: "ml-training", Name: "whisper-ft", Evidence: "checkpoints every 1h0m0s"},
		{Kind: "CronJob", Namespace: "batch", Name: "nightly-train", Evidence: "checkpoints every 30m0s"},
		{Kind: "Deployment", Namespace: "research", Name: "trainer", Evidence: "checkpoints every 30m0s"},
		{Kind: "Job", Namespace: "ml-training", Name: "once", Evidence: "checkpoints every 30m0s"},
	}
}

func TestSpotPlacementsGolden(t *testing.T) {
	t.Parallel()
	files, notes, err := SpotPlacements(spotFixture())
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "Job ml-training/once: not patched") {
		t.Errorf("notes %q, want the bare Job's", notes)
	}
	var b bytes.Buffer
	if err := WriteStream(&b, files); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/spot.yaml", b.Bytes())
}

// The patches decode strictly into the upstream kinds, select spot on
// every provider and never touch the containers (a strategic merge reads
// containers: null as "delete them").
func TestSpotPlacementsDecodeStrictly(t *testing.T) {
	t.Parallel()
	files, _, err := SpotPlacements(spotFixture())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.Contains(string(f.Data), "containers") {
			t.Errorf("%s mentions containers", f.Path)
		}
		var terms int
		switch {
		case strings.HasSuffix(f.Path, "deployment-trainer.yaml"):
			var d appsv1.Deployment
			if err := yaml.UnmarshalStrict(f.Data, &d); err != nil {
				t.Fatalf("%s: %v", f.Path, err)
			}
			terms = preferredSpot(t, f.Path, d.Spec.Template.Spec.Affinity)
		case strings.HasSuffix(f.Path, "cronjob-nightly-train.yaml"):
			var c batchv1.CronJob
			if err := yaml.UnmarshalStrict(f.Data, &c); err != nil {
				t.Fatalf("%s: %v", f.Path, err)
			}
			terms = preferredSpot(t, f.Path, c.Spec.JobTemplate.Spec.Template.Spec.Affinity)
		default:
			continue
		}
		if terms != 4 {
			t.Errorf("%s: %d node selector terms, want Karpenter, EKS, AKS and GKE", f.Path, terms)
		}
	}
}

// preferredSpot checks that a placement prefers spot and requires
// nothing (so the on-demand fallback can bind), and counts its terms.
func preferredSpot(t *testing.T, path string, a *corev1.Affinity) int {
	t.Helper()
	if a == nil || a.NodeAffinity == nil {
		t.Fatalf("%s: no node affinity", path)
	}
	if a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		t.Errorf("%s: a required node affinity leaves the pod pending when no spot node fits; want preferred only", path)
	}
	for _, p := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		if p.Weight != 100 {
			t.Errorf("%s: preferred term of weight %d, want 100", path, p.Weight)
		}
	}
	return len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
}
