// Package admissionprof measures, in-process, what the API server's
// ValidatingAdmissionPolicy plugin spends on gpuwise's generated policies
// per pod create: the plugin's own validator (k8s.io/apiserver v0.37.2,
// the version of hack/controlplane) compiled as its compilePolicy does, fed
// the bench pod of test/integration/kube/admission_bench_test.go, once per
// binding, with each binding wrapped as the dispatcher wraps an informer's
// params (wrappedParam: converted to unstructured on every activation).
// docs/performance.md, "Cost of enforcement", has the method and results.
// A module of its own so that gpuwise does not depend on k8s.io/apiserver.
//
//	go run ../../cmd/gpuwise generate policy --mode deny -d /tmp/a
//	VAPDIRS=/tmp/a,/tmp/b go test -bench . -benchtime 3000x -count 3
//
// Environment: VAPDIRS (generate -d directories; the pods policy and its
// bindings are read), ONLYRULES=1 (drop bindings labelled with no rule),
// NOMF=1 (bindings without managedFields), NOANN=1 (without annotations).
package admissionprof

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	admv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

func load(t testing.TB, dir string) (*admv1.ValidatingAdmissionPolicy, []*admv1.ValidatingAdmissionPolicyBinding, *admv1.MutatingAdmissionPolicy) {
	var vap *admv1.ValidatingAdmissionPolicy
	var bs []*admv1.ValidatingAdmissionPolicyBinding
	var mp *admv1.MutatingAdmissionPolicy
	for _, f := range []string{"gpuwise-pods.yaml", "gpuwise-gw004-add-gpu-toleration.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, "policy/native", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			var tm metav1.TypeMeta
			yaml.Unmarshal(doc, &tm)
			switch tm.Kind {
			case "ValidatingAdmissionPolicy":
				vap = &admv1.ValidatingAdmissionPolicy{}
				must(t, yaml.UnmarshalStrict(doc, vap))
			case "ValidatingAdmissionPolicyBinding":
				b := &admv1.ValidatingAdmissionPolicyBinding{}
				must(t, yaml.UnmarshalStrict(doc, b))
				bs = append(bs, b)
			case "MutatingAdmissionPolicy":
				mp = &admv1.MutatingAdmissionPolicy{}
				must(t, yaml.UnmarshalStrict(doc, mp))
			}
		}
	}
	return vap, bs, mp
}

func must(t testing.TB, err error) {
	if err != nil {
		t.Fatal(err)
	}
}

// compile mirrors validating.compilePolicy (v0.37.2 plugin.go).
func compile(t testing.TB, policy *admv1.ValidatingAdmissionPolicy) validating.Validator {
	hasParam := policy.Spec.ParamKind != nil
	optionalVars := cel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: true}
	exprVars := cel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: false}
	fc, err := cel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	must(t, err)
	var vars []cel.NamedExpressionAccessor
	for _, v := range policy.Spec.Variables {
		vars = append(vars, &validating.Variable{Name: v.Name, Expression: v.Expression})
	}
	fc.CompileAndStoreVariables(vars, optionalVars, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if mc := policy.Spec.MatchConditions; len(mc) > 0 {
		acc := make([]cel.ExpressionAccessor, len(mc))
		for i := range mc {
			acc[i] = (*matchconditions.MatchCondition)(&mc[i])
		}
		matcher = matchconditions.NewMatcher(fc.CompileCondition(acc, optionalVars, environment.StoredExpressions), policy.Spec.FailurePolicy, "policy", "validate", policy.Name)
	}
	vals := make([]cel.ExpressionAccessor, len(policy.Spec.Validations))
	msgs := make([]cel.ExpressionAccessor, len(policy.Spec.Validations))
	for i, v := range policy.Spec.Validations {
		vals[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message}
		if v.MessageExpression != "" {
			msgs[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	val := validating.NewValidator(fc.CompileCondition(vals, optionalVars, environment.StoredExpressions), matcher,
		fc.CompileCondition(nil, optionalVars, environment.StoredExpressions),
		fc.CompileCondition(msgs, exprVars, environment.StoredExpressions), policy.Spec.FailurePolicy, nil)
	return val
}

func mq(s string) resource.Quantity { return resource.MustParse(s) }

// pod is the bench pod as validating admission sees it: limits, requests
// defaulted from them, the toleration, the team label.
func pod(kind string) *corev1.Pod {
	lim := corev1.ResourceList{"nvidia.com/gpu": mq("1"), "cpu": mq("1"), "memory": mq("1Gi")}
	tol := []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	if kind == "cpu" {
		delete(lim, "nvidia.com/gpu")
		tol = nil
	}
	req := corev1.ResourceList{}
	for k, v := range lim {
		req[k] = v.DeepCopy()
	}
	no := false
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "bench-00001", Namespace: "bench-adm", Labels: map[string]string{"team": "ml"}},
		Spec: corev1.PodSpec{AutomountServiceAccountToken: &no, SchedulerName: "gpuwise-bench-none", Tolerations: tol,
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/app:1", TerminationMessagePath: "/dev/termination-log",
				ImagePullPolicy: corev1.PullIfNotPresent,
				Resources:       corev1.ResourceRequirements{Limits: lim, Requests: req}}}}}
}

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
var podGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func attrs(p *corev1.Pod) *admission.VersionedAttributes {
	a := admission.NewAttributesRecord(p, nil, podGVK, p.Namespace, p.Name, podGVR, "", admission.Create, &metav1.CreateOptions{}, false, &user.DefaultInfo{Name: "admin", Groups: []string{"system:masters"}})
	va := &admission.VersionedAttributes{Attributes: a, VersionedKind: podGVK}
	va.VersionedObject.Set(p)
	return va
}

func run(b *testing.B, dir, kind string, check bool) {
	vap, bs, _ := load(b, dir)
	v := compile(b, vap)
	must(b, v.CompileError())
	if os.Getenv("ONLYRULES") != "" {
		var keep []*admv1.ValidatingAdmissionPolicyBinding
		for _, x := range bs {
			for k := range x.Labels {
				if strings.HasPrefix(k, "rules.gpuwise.io/") {
					keep = append(keep, x)
					break
				}
			}
		}
		bs = keep
	}
	for _, x := range bs {
		if os.Getenv("NOANN") != "" {
			x.Annotations = nil
		}
		x.UID = "0d4a2b1c-1111-2222-3333-444455556666"
		x.ResourceVersion = "12345"
		x.Generation = 1
		x.CreationTimestamp = metav1.Now()
		raw := `{"f:metadata":{"f:annotations":{".":{},"f:gpuwise.io/rules":{},"f:gpuwise.io/summary":{}},"f:labels":{".":{}`
		for k := range x.Labels {
			raw += `,"f:` + k + `":{}`
		}
		raw += `}},"f:spec":{"f:paramRef":{".":{},"f:name":{},"f:parameterNotFoundAction":{}},"f:policyName":{},"f:validationActions":{}}}`
		if os.Getenv("NOMF") == "" {
			x.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "admissionregistration.k8s.io/v1",
				Time: &x.CreationTimestamp, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(raw)}}}
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench-adm", Labels: map[string]string{"kubernetes.io/metadata.name": "bench-adm"}}}
	var params []runtime.Object
	for _, x := range bs {
		if x.Spec.ParamRef == nil {
			params = append(params, nil)
			continue
		}
		params = append(params, &wrapped{TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"}, nested: x})
	}
	if os.Getenv("NOPARAMS") != "" {
		params = make([]runtime.Object, len(bs))
	}
	p := pod(kind)
	ctx := context.Background()
	if check {
		for i, x := range bs {
			r := v.Validate(ctx, podGVR, attrs(p), params[i], ns, celconfig.RuntimeCELCostBudget, nil)
			for _, d := range r.Decisions {
				if d.Action != validating.ActionAdmit {
					b.Fatalf("%s: %+v", x.Name, d)
				}
			}
			b.Logf("%s: %d decisions", x.Name, len(r.Decisions))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		va := attrs(p)
		for i := range bs {
			v.Validate(ctx, podGVR, va, params[i], ns, celconfig.RuntimeCELCostBudget, nil)
		}
	}
}

func dirs() []string { return strings.Split(os.Getenv("VAPDIRS"), ",") }

func BenchmarkVAPGPU(b *testing.B) {
	for _, d := range dirs() {
		b.Run(filepath.Base(d), func(b *testing.B) { run(b, d, "gpu", true) })
	}
}

func BenchmarkVAPCPU(b *testing.B) {
	for _, d := range dirs() {
		b.Run(filepath.Base(d), func(b *testing.B) { run(b, d, "cpu", true) })
	}
}

// wrapped mirrors validating.wrappedParam: informer objects lack TypeMeta.
type wrapped struct {
	metav1.TypeMeta
	nested runtime.Object
}

func (w *wrapped) MarshalJSON() ([]byte, error) { return nil, fmt.Errorf("unimplemented") }
func (w *wrapped) UnmarshalJSON([]byte) error   { return fmt.Errorf("unimplemented") }
func (w *wrapped) ToUnstructured() interface{} {
	res, err := runtime.DefaultUnstructuredConverter.ToUnstructured(w.nested)
	if err != nil {
		return nil
	}
	meta, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&w.TypeMeta)
	for k, v := range meta {
		res[k] = v
	}
	return res
}
func (w *wrapped) DeepCopyObject() runtime.Object {
	return &wrapped{w.TypeMeta, w.nested.DeepCopyObject()}
}

// BenchmarkCompile is the plugin's compilation of the pods policy, done
// again whenever the policy changes or gets its first binding back.
func BenchmarkCompile(b *testing.B) {
	for _, d := range dirs() {
		b.Run(filepath.Base(d), func(b *testing.B) {
			vap, _, _ := load(b, d)
			b.ReportAllocs()
			for range b.N {
				must(b, compile(b, vap).CompileError())
			}
		})
	}
}
