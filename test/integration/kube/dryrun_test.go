//go:build integration

package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/cli"
)

// generateRuns are the `gpuwise generate` subcommands (and the variants of
// their output) whose every file TestEveryGeneratedObjectDryRun checks.
var generateRuns = [][]string{
	{"autoscaling"}, {"autoscaling", "--hpa"},
	{"mig"}, {"mig", "--shapes", "current"},
	{"nodepool"}, {"nodepool", "--node-class-group", "karpenter.azure.com", "--node-class", "AKSNodeClass/mine"},
	{"plan"}, {"plan", "--shapes", "current"},
	{"policy"}, {"policy", "--mode", "deny"}, {"policy", "--engine", "kyverno"}, {"policy", "--engine", "kyverno", "--kyverno-legacy"},
	{"policy", "--engine", "gatekeeper"},
	{"quota"}, {"kueue"}, {"reclaim"}, {"resources"}, {"spot"}, {"timeslicing"}, {"vpa"},
}

// TestEveryGeneratedObjectDryRun (issue 27) writes every file of every
// `gpuwise generate` subcommand for the demo and hands each object in it
// to the real apiserver with server-side dry run (dryRun=All, strict field
// validation), under the CRDs of the projects that define the kinds, from
// their Go modules (hack/crds/build.sh: Karpenter's NodePool as the AWS
// provider ships it, with its EC2NodeClass; KEDA's ScaledObject; the VPA;
// Kueue's ResourceFlavor, Cohort, ClusterQueue and LocalQueue;
// Kyverno's and Gatekeeper's from hack/policyengines): a refusal fails
// the test. What a file is decides how it is applied, as its apply line
// says:
//   - an object (`kubectl apply -f`): created, dry run;
//   - a patch (`kubectl patch KIND NAME -n NS --type T`): the target is
//     created from the patch's own containers (the GPU resource the patch
//     removes among them), then the patch is sent, dry run, with that type;
//   - a pod-template fragment (spot placements): merged into a pod, which
//     is created, dry run;
//   - comments and shell scripts are not objects and are counted apart.
//
// Every NodePool's nodeClassRef must name a kind the apiserver serves once
// the provider's CRD is installed: the AWS provider's EC2NodeClass and the
// Azure provider's AKSNodeClass (vendored in hack/crds/azure: its module
// is not on the proxy), under which the AKSNodeClass `generate nodepool`
// writes for the Azure pools is created too. The Azure NodePools are then
// checked a second time under the Azure provider's own NodePool CRD
// (Karpenter's with its karpenter.azure.com and kubernetes.azure.com label
// rules), swapped in for the AWS one and back; a probe NodePool that only
// the Azure rules refuse proves the swap took effect. GCP has no Karpenter
// provider (GKE provisions through node auto-provisioning), so no GCP pool
// is written. The count per subcommand and the total are logged.
func TestEveryGeneratedObjectDryRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	crdDir, policyDir := os.Getenv("GPUWISE_CRDS"), os.Getenv("GPUWISE_POLICY_CRDS")
	if crdDir == "" || policyDir == "" {
		t.Fatal("GPUWISE_CRDS or GPUWISE_POLICY_CRDS is unset: run `make integration-kube`, which fetches the CRDs (hack/crds, hack/policyengines)")
	}
	cs, cfg := admin(t)
	dyn := dynamic.NewForConfigOrDie(cfg)
	var crds []string
	for _, f := range append([]string{"karpenter-aws/karpenter.sh_nodepools.yaml", "karpenter-aws/karpenter.k8s.aws_ec2nodeclasses.yaml",
		"karpenter-azure/karpenter.azure.com_aksnodeclasses.yaml", "keda/keda.sh_scaledobjects.yaml", "vpa/vpa-v1-crd-gen.yaml"}, kueueCRDs...) {
		for _, crd := range documents(t, filepath.Join(crdDir, f)) {
			crds = append(crds, putCRD(ctx, t, dyn, crd))
		}
	}
	for _, f := range engineCRDs {
		crds = append(crds, putCRD(ctx, t, dyn, firstDocument(t, filepath.Join(policyDir, f))))
	}
	defer removeCRDs(t, dyn, &crds)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))

	d := &dryRun{ctx: ctx, t: t, dyn: dyn, mapper: mapper, cs: cs, made: map[string]bool{}}
	defer d.cleanup()
	total, perRun := 0, map[string]int{}
	var lines []string
	for _, args := range generateRuns {
		dir := t.TempDir()
		cmd := append([]string{"generate"}, args...)
		if _, errOut, code := execute(t, append(cmd, "--demo", "-d", dir)...); code != cli.ExitOK {
			t.Fatalf("gpuwise %s: exit %d: %s", strings.Join(cmd, " "), code, errOut)
		}
		name := strings.Join(args, " ")
		kinds := map[string]int{}
		notObjects := 0
		files := walkFiles(t, dir)
		for _, f := range files {
			rel, _ := filepath.Rel(dir, f)
			got := d.file(f, rel)
			if len(got) == 0 {
				notObjects++
			}
			for k, c := range got {
				kinds[k] += c
			}
		}
		d.cleanup() // the next run's patches get targets of their own
		n := 0
		for _, c := range kinds {
			n += c
		}
		perRun[name] = n
		total += n
		lines = append(lines, fmt.Sprintf("generate %-60s %3d object(s) accepted %v; %d file(s) not objects (scripts, comments)", name, n, kinds, notObjects))
		if n == 0 && name != "timeslicing" && name != "mig --shapes current" && name != "mig" {
			t.Errorf("generate %s wrote no object to check (%d files)", name, len(files))
		}
	}
	azurePools := d.underAzureNodePoolCRD(filepath.Join(crdDir, "karpenter-azure", "karpenter.sh_nodepools.yaml"),
		filepath.Join(crdDir, "karpenter-aws", "karpenter.sh_nodepools.yaml"))
	t.Logf("server-side dry run (dryRun=All) of every generated object:\n%s\ntotal: %d object(s) accepted, %d refused; "+
		"the %d Azure NodePool(s) accepted again under the Azure provider's NodePool CRD",
		strings.Join(lines, "\n"), total, d.refused, azurePools)
	if perRun["nodepool"] == 0 || azurePools == 0 {
		t.Errorf("no Azure NodePool checked under the Azure provider's CRD (%d pools)", azurePools)
	}
	if total < 150 {
		t.Errorf("%d objects in all: the demo's generate commands write more than 150; something was not read", total)
	}
}

type dryRun struct {
	ctx     context.Context
	t       *testing.T
	dyn     dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
	cs      *kubernetes.Clientset
	made    map[string]bool // targets created for patches, by kind/ns/name
	targets []*unstructured.Unstructured
	refused int
	azure   []*unstructured.Unstructured // the Azure NodePools accepted, for underAzureNodePoolCRD
}

// patchLine is the apply line of a patch file.
var patchLine = regexp.MustCompile(`kubectl patch (\S+) (\S+) -n (\S+)(?: --type (\S+))?`)

// file checks every document of one generated file and says how many
// objects of each kind it held.
func (d *dryRun) file(path, rel string) map[string]int {
	t := d.t
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	if !strings.HasSuffix(path, ".yaml") {
		return out
	}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Errorf("%s: not YAML: %v", rel, err)
			continue
		}
		if m == nil {
			continue
		}
		o := &unstructured.Unstructured{Object: m}
		var err2 error
		var kind string
		switch p := patchLine.FindStringSubmatch(doc); {
		case p != nil:
			kind = "patch of " + p[1]
			err2 = d.patch(o, p[1], p[2], p[3], p[4])
		case o.GetKind() == "":
			kind = "pod fragment"
			err2 = d.fragment(o)
		default:
			kind = o.GetKind()
			err2 = d.create(o)
			if err2 == nil && kind == "NodePool" {
				err2 = d.nodeClass(o)
			}
		}
		if err2 != nil {
			d.refused++
			t.Errorf("%s: %v\n%s", rel, err2, doc)
			continue
		}
		out[kind]++
	}
	return out
}

// resource maps an object's kind to its resource, through discovery (the
// CRDs just installed included).
func (d *dryRun) resource(gvk schema.GroupVersionKind, ns string) (dynamic.ResourceInterface, error) {
	m, err := d.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		d.mapper.Reset()
		if m, err = d.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return nil, fmt.Errorf("the apiserver serves no %s: %w", gvk, err)
		}
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if ns == "" {
			ns = "default"
		}
		ensureNamespace(d.ctx, d.t, d.cs, ns)
		return d.dyn.Resource(m.Resource).Namespace(ns), nil
	}
	return d.dyn.Resource(m.Resource), nil
}

var dryRunAll = []string{metav1.DryRunAll}

// create sends an object, dry run; a Gatekeeper template first gets the
// constraint CRD its controller would make, so its constraints can follow.
func (d *dryRun) create(o *unstructured.Unstructured) error {
	if o.GetKind() == "ConstraintTemplate" {
		if name := putCRD(d.ctx, d.t, d.dyn, constraintCRD(d.t, o)); name != "" {
			d.t.Cleanup(func() { removeCRDs(d.t, d.dyn, &[]string{name}) })
		}
	}
	r, err := d.resource(o.GroupVersionKind(), o.GetNamespace())
	if err != nil {
		return err
	}
	if _, err := r.Create(d.ctx, o, metav1.CreateOptions{DryRun: dryRunAll, FieldValidation: "Strict"}); err != nil {
		return fmt.Errorf("the apiserver refuses %s %s: %w", o.GetKind(), o.GetName(), err)
	}
	return nil
}

// nodeClass checks that a NodePool's nodeClassRef names a served kind,
// and keeps the Azure ones for underAzureNodePoolCRD.
func (d *dryRun) nodeClass(o *unstructured.Unstructured) error {
	ref, _, _ := unstructured.NestedStringMap(o.Object, "spec", "template", "spec", "nodeClassRef")
	if ref["group"] == "karpenter.azure.com" {
		d.azure = append(d.azure, o.DeepCopy())
	}
	if _, err := d.mapper.RESTMapping(schema.GroupKind{Group: ref["group"], Kind: ref["kind"]}); err != nil {
		return fmt.Errorf("NodePool %s references %s.%s, which the provider's CRD does not serve: %w", o.GetName(), ref["kind"], ref["group"], err)
	}
	return nil
}

// underAzureNodePoolCRD replaces the NodePool CRD by the Azure provider's,
// sends every Azure NodePool again (dry run), and puts the AWS one back;
// after each swap it waits until a probe NodePool with the requirement key
// "accelerator" (restricted by the Azure rules only) is refused, or
// accepted again, so the pools are judged by the schema swapped in. It
// returns how many pools were accepted.
func (d *dryRun) underAzureNodePoolCRD(azureCRD, awsCRD string) int {
	t := d.t
	probe := func() error {
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
			"metadata": map[string]any{"name": "gpuwise-probe"},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"nodeClassRef": map[string]any{"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "gpu"},
				"requirements": []any{map[string]any{"key": "accelerator", "operator": "Exists"}}}}}}}
		return d.create(o)
	}
	swap := func(file string, refused bool) {
		putCRD(d.ctx, t, d.dyn, firstDocument(t, file))
		waitFor(t, "the NodePool schema of "+filepath.Base(filepath.Dir(file))+" to take effect", time.Minute, func() (bool, string) {
			err := probe()
			return (err != nil) == refused, fmt.Sprint(err)
		})
	}
	swap(azureCRD, true)
	defer swap(awsCRD, false)
	n := 0
	for _, o := range d.azure {
		if err := d.create(o); err != nil {
			d.refused++
			t.Errorf("under the Azure provider's NodePool CRD: %v", err)
			continue
		}
		n++
	}
	return n
}

// workloadKinds are the kinds a patch targets, by kubectl's name.
var workloadKinds = map[string]schema.GroupVersionKind{
	"deployment": {Group: "apps", Version: "v1", Kind: "Deployment"}, "statefulset": {Group: "apps", Version: "v1", Kind: "StatefulSet"},
	"daemonset": {Group: "apps", Version: "v1", Kind: "DaemonSet"}, "cronjob": {Group: "batch", Version: "v1", Kind: "CronJob"},
}

// patch creates the patch's target (once) and sends the patch, dry run.
func (d *dryRun) patch(p *unstructured.Unstructured, kind, name, ns, typ string) error {
	gvk, ok := workloadKinds[kind]
	if !ok {
		return fmt.Errorf("a patch of a %s, which this test cannot make a target for", kind)
	}
	pt := types.StrategicMergePatchType
	switch typ {
	case "", "strategic":
	case "merge":
		pt = types.MergePatchType
	default:
		return fmt.Errorf("patch type %q", typ)
	}
	if p.GetKind() != "" && (p.GetKind() != gvk.Kind || p.GetName() != name || p.GetNamespace() != ns) {
		return fmt.Errorf("the patch is a %s %s/%s, its apply line patches %s %s/%s", p.GetKind(), p.GetNamespace(), p.GetName(), kind, ns, name)
	}
	r, err := d.resource(gvk, ns)
	if err != nil {
		return err
	}
	key := kind + "/" + ns + "/" + name
	target := workloadFor(gvk, ns, name, p)
	if !d.made[key] {
		if _, err := r.Create(d.ctx, target, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the patch's target %s: %w", key, err)
		}
		d.made[key] = true
		d.targets = append(d.targets, target)
	}
	body, err := p.MarshalJSON()
	if err != nil {
		return err
	}
	if _, err := r.Patch(d.ctx, name, pt, body, metav1.PatchOptions{DryRun: dryRunAll, FieldValidation: "Strict"}); err != nil {
		return fmt.Errorf("the apiserver refuses the %s patch of %s: %w", pt, key, err)
	}
	return nil
}

// podSpecPath is where a workload kind keeps its pod spec.
func podSpecPath(kind string) []string {
	if kind == "CronJob" {
		return []string{"spec", "jobTemplate", "spec", "template", "spec"}
	}
	return []string{"spec", "template", "spec"}
}

// workloadFor is a workload the patch applies to: one pause container per
// container the patch names, holding the GPU resource the patch removes
// (a null in it) so the swap has something to swap.
func workloadFor(gvk schema.GroupVersionKind, ns, name string, p *unstructured.Unstructured) *unstructured.Unstructured {
	var containers []any
	cs, _, _ := unstructured.NestedSlice(p.Object, append(podSpecPath(gvk.Kind), "containers")...)
	for _, c := range cs {
		cm, _ := c.(map[string]any)
		res := map[string]any{"cpu": "1", "memory": "1Gi"}
		for _, side := range []string{"requests", "limits"} {
			m, _, _ := unstructured.NestedMap(cm, "resources", side)
			for k, v := range m {
				if v == nil && strings.HasPrefix(k, "nvidia.com/") {
					res[k] = "1"
				}
			}
		}
		lim := map[string]any{}
		for k, v := range res {
			if strings.HasPrefix(k, "nvidia.com/") {
				lim[k] = v
			}
		}
		containers = append(containers, map[string]any{"name": cm["name"], "image": "registry.k8s.io/pause:3.10",
			"resources": map[string]any{"requests": res, "limits": lim}})
	}
	if len(containers) == 0 {
		containers = []any{map[string]any{"name": "main", "image": "registry.k8s.io/pause:3.10"}}
	}
	labels := map[string]any{"app": name}
	pod := map[string]any{"metadata": map[string]any{"labels": labels},
		"spec": map[string]any{"containers": containers, "nodeSelector": map[string]any{"gpuwise-test": "nowhere"}}}
	spec := map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": pod}
	switch gvk.Kind {
	case "Deployment":
		spec["replicas"] = int64(0)
	case "StatefulSet":
		spec["replicas"], spec["serviceName"] = int64(0), name
	case "CronJob":
		pod["spec"].(map[string]any)["restartPolicy"] = "Never"
		spec = map[string]any{"schedule": "0 3 * * *", "suspend": true, "jobTemplate": map[string]any{"spec": map[string]any{"template": pod}}}
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind,
		"metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
}

// fragment merges a pod-template fragment (spec.affinity and
// spec.tolerations, or template.spec's) into a GPU pod and creates it,
// dry run.
func (d *dryRun) fragment(f *unstructured.Unstructured) error {
	spec, ok, _ := unstructured.NestedMap(f.Object, "spec")
	if !ok {
		spec, ok, _ = unstructured.NestedMap(f.Object, "template", "spec")
	}
	if !ok || len(spec) == 0 {
		return fmt.Errorf("neither an object (no kind), nor a patch (no kubectl patch line), nor a pod-template fragment (no spec)")
	}
	spec["containers"] = []any{map[string]any{"name": "train", "image": "registry.k8s.io/pause:3.10",
		"resources": map[string]any{"limits": map[string]any{"nvidia.com/gpu": "1"}}}}
	spec["restartPolicy"] = "OnFailure"
	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "spot-fragment", "namespace": "default"}, "spec": spec}}
	return d.create(pod)
}

// cleanup deletes the targets the patches were sent to, and waits until
// they are gone.
func (d *dryRun) cleanup() {
	for _, o := range d.targets {
		r, err := d.resource(o.GroupVersionKind(), o.GetNamespace())
		if err != nil {
			continue
		}
		fg := metav1.DeletePropagationForeground
		r.Delete(context.Background(), o.GetName(), metav1.DeleteOptions{PropagationPolicy: &fg})
		waitFor(d.t, "patch target "+o.GetName()+" to go", time.Minute, func() (bool, string) {
			_, err := r.Get(d.ctx, o.GetName(), metav1.GetOptions{})
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
	}
	d.targets, d.made = nil, map[string]bool{}
}

// documents are the YAML documents of a file.
func documents(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if m != nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	return out
}

// putCRD creates a CRD or replaces the one of that name (another test may
// have installed Karpenter's own NodePool CRD), and waits until it is
// established. It returns the name of a CRD it created, "" for one it
// replaced (which stays: the test that made it may still want it).
func putCRD(ctx context.Context, t *testing.T, dyn dynamic.Interface, crd *unstructured.Unstructured) string {
	t.Helper()
	r := dyn.Resource(gvrs["CustomResourceDefinition"])
	if old, err := r.Get(ctx, crd.GetName(), metav1.GetOptions{}); err == nil {
		crd.SetResourceVersion(old.GetResourceVersion())
		if _, err := r.Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("replacing CRD %s: %v", crd.GetName(), err)
		}
		crd.SetResourceVersion("")
		createCRD(ctx, t, dyn, crd)
		return ""
	}
	return createCRD(ctx, t, dyn, crd)
}

// removeCRDs deletes the CRDs this test created and waits until they are
// gone, so that a later test creating them does not race their deletion.
func removeCRDs(t *testing.T, dyn dynamic.Interface, names *[]string) {
	r := dyn.Resource(gvrs["CustomResourceDefinition"])
	for _, n := range *names {
		if n == "" {
			continue
		}
		r.Delete(context.Background(), n, metav1.DeleteOptions{})
		waitFor(t, "CRD "+n+" to be deleted", time.Minute, func() (bool, string) {
			_, err := r.Get(context.Background(), n, metav1.GetOptions{})
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
	}
}

// walkFiles are the files under dir.
func walkFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
