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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// The CRDs the capacity artefacts need, from the Go modules gpuwise's
// tests decode them with (go.mod pins the versions).
var capacityCRDs = []struct{ module, file string }{
	{"github.com/kedacore/keda/v2", "config/crd/bases/keda.sh_scaledobjects.yaml"},
	{"sigs.k8s.io/karpenter", "pkg/apis/crds/karpenter.sh_nodepools.yaml"},
}

// TestCapacityArtefactsAgainstTheRealAPIServer installs the KEDA and
// Karpenter CRDs into the real apiserver and server-side dry-run creates
// every ScaledObject, HPA and NodePool `gpuwise generate autoscaling`
// (with and without --hpa), `generate nodepool` and `generate spot` write
// for the demo:
// the CRDs' OpenAPI schemas and CEL rules, and the HPA's validation, all
// accept them. Nothing is persisted.
func TestCapacityArtefactsAgainstTheRealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, cfg := admin(t)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range capacityCRDs {
		installCRD(ctx, t, dyn, filepath.Join(moduleDir(t, c.module), c.file))
	}
	// The Azure provider's AKSNodeClass, vendored (its module is not on the
	// proxy: hack/crds/azure/README.md): generate nodepool writes one for
	// the demo's Azure pools.
	installCRD(ctx, t, dyn, filepath.Join("..", "..", "..", "hack", "crds", "azure", "karpenter.azure.com_aksnodeclasses.yaml"))
	dir := t.TempDir()
	for _, args := range [][]string{{"generate", "autoscaling", "--demo", "-d", dir}, {"generate", "autoscaling", "--demo", "--hpa", "-d", dir},
		{"generate", "nodepool", "--demo", "-d", dir}, {"generate", "spot", "--demo", "-d", dir}} {
		if _, errOut, code := execute(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "[hk]*", "*", "*.yaml")) // hpa/, keda/
	pools, _ := filepath.Glob(filepath.Join(dir, "nodepool", "*.yaml"))
	files = append(files, pools...)
	kinds := map[string]int{}
	for _, f := range files {
		obj := readObject(t, f)
		if ns := obj.GetNamespace(); ns != "" {
			ensureNamespace(ctx, t, cs, ns) // inventory_test.go's; a dry-run create still needs the namespace
		}
		gvr := resourceOf(obj)
		var ri dynamic.ResourceInterface = dyn.Resource(gvr)
		if ns := obj.GetNamespace(); ns != "" {
			ri = dyn.Resource(gvr).Namespace(ns)
		}
		if _, err := ri.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}); err != nil {
			t.Errorf("the apiserver refused %s (%s): %v", f, obj.GetKind(), err)
			continue
		}
		kinds[obj.GetKind()]++
	}
	if kinds["ScaledObject"] == 0 || kinds["HorizontalPodAutoscaler"] != kinds["ScaledObject"] || kinds["NodePool"] == 0 || kinds["AKSNodeClass"] != 1 {
		t.Errorf("accepted %v: want every service as a ScaledObject and an HPA, the NodePools and the Azure pools' AKSNodeClass", kinds)
	}
	t.Logf("server-side dry-run accepted %v", kinds)
}

// moduleDir is where the go command keeps a module of go.mod.
func moduleDir(t *testing.T, module string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("locating module %s (go mod download): %v", module, err)
	}
	return strings.TrimSpace(string(out))
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installCRD creates a CRD (or finds it there) and waits until it is
// established.
func installCRD(ctx context.Context, t *testing.T, dyn dynamic.Interface, file string) {
	t.Helper()
	crd := readObject(t, file)
	if _, err := dyn.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("installing %s: %v", file, err)
	}
	waitFor(t, "CRD "+crd.GetName()+" established", time.Minute, func() (bool, string) {
		got, err := dyn.Resource(crdResource).Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
				return true, ""
			}
		}
		return false, "not established"
	})
}

// readObject reads one generated YAML object (comments and all).
func readObject(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return &unstructured.Unstructured{Object: m}
}

// resourceOf maps the generated kinds to their resources.
func resourceOf(obj *unstructured.Unstructured) schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(obj.GetAPIVersion())
	plural := map[string]string{"ScaledObject": "scaledobjects", "HorizontalPodAutoscaler": "horizontalpodautoscalers", "NodePool": "nodepools",
		"AKSNodeClass": "aksnodeclasses"}
	return gv.WithResource(plural[obj.GetKind()])
}
