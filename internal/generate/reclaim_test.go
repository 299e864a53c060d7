package generate

import (
	"bytes"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

func TestReclaimsGolden(t *testing.T) {
	t.Parallel()
	in := []Reclaim{
		{Kind: "StatefulSet", Namespace: "notebooks", Name: "cv-experiments", Evidence: "3 stretches of 4 h or more below 5% GPU activity", IdleMinutes: 240},
		{Kind: "Deployment", Namespace: "dev", Name: "devbox-erin", Evidence: "7 stretches", IdleMinutes: 240},
		{Kind: "Notebook", Namespace: "kubeflow-user", Name: "lab", Evidence: "2 stretches", IdleMinutes: 240},
		{Kind: "Pod", Namespace: "notebooks", Name: "jupyter-mia", Evidence: "6 stretches", IdleMinutes: 240},
	}
	files, err := Reclaims(in)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteStream(&b, files); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/reclaim.yaml", b.Bytes())
	for _, f := range files {
		if strings.Contains(f.Path, "statefulset-") {
			var s appsv1.StatefulSet
			if err := yaml.UnmarshalStrict(f.Data, &s); err != nil || s.Spec.Replicas == nil || *s.Spec.Replicas != 0 {
				t.Errorf("%s: %v, replicas %v; want a strict StatefulSet patch to 0", f.Path, err, s.Spec.Replicas)
			}
		}
	}
	if _, err := Reclaims([]Reclaim{{Kind: "Pod", Namespace: "n", Name: "Bad_Name", IdleMinutes: 0}}); err == nil ||
		!strings.Contains(err.Error(), "Bad_Name") || !strings.Contains(err.Error(), "idle minutes 0") {
		t.Errorf("bad input: %v", err)
	}
}
