package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A namespace glob list becomes a constant where it matches every
// namespace or none, so no regular expression runs per request.
func TestNSMatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		globs []string
		want  string
	}{
		{nil, "false"},
		{[]string{"*"}, "true"},
		{[]string{"dev", "**"}, "true"},
		{[]string{"dev", "ml-*"}, "object.metadata.namespace.matches('^(?:dev|ml-[^/]*)$')"},
	} {
		if got := nsMatches(tc.globs); got != tc.want {
			t.Errorf("nsMatches(%q) = %q, want %q", tc.globs, got, tc.want)
		}
	}
}

// The cap table keeps first-match order, stops at an entry for every
// namespace and leaves out one for none.
func TestLimitTable(t *testing.T) {
	t.Parallel()
	re := func(g string) string { return "object.metadata.namespace.matches('^(?:" + g + ")$')" }
	for _, tc := range []struct {
		name  string
		table []NamespaceLimit
		want  string
	}{
		{"none", nil, "-1"},
		{"every namespace", []NamespaceLimit{{[]string{"*"}, 8}}, "8"},
		{"one then every", []NamespaceLimit{{[]string{"ml"}, 2}, {[]string{"*"}, 8}}, re("ml") + " ? 2 : 8"},
		{"every ends the table", []NamespaceLimit{{[]string{"*"}, 8}, {[]string{"ml"}, 2}}, "8"},
		{"no match-all", []NamespaceLimit{{[]string{"a"}, 1}, {[]string{"b"}, 2}}, re("a") + " ? 1 : (" + re("b") + " ? 2 : -1)"},
		{"empty entry left out", []NamespaceLimit{{nil, 1}, {[]string{"b"}, 2}}, re("b") + " ? 2 : -1"},
	} {
		s := Defaults()
		s.MaxGPUsPerPod = tc.table
		if got := (gen{s: s}).limitTable(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Natively a positive limit is a string test and equal quantities answer
// on equal strings first; other engines parse every quantity.
func TestNativeQuantities(t *testing.T) {
	t.Parallel()
	native, other := gen{s: Defaults(), native: true}, gen{s: Defaults()}
	if got, want := native.positive("c", "r"), "string(c.resources.limits[r]) != '0'"; got != want {
		t.Errorf("native positive = %q, want %q", got, want)
	}
	if got := other.positive("c", "r"); !strings.Contains(got, "quantity(") {
		t.Errorf("positive = %q, want a quantity comparison", got)
	}
	if got, want := native.sameQuantity("a", "b"), "(a == b || quantity(a).compareTo(quantity(b)) == 0)"; got != want {
		t.Errorf("native sameQuantity = %q, want %q", got, want)
	}
	if got, want := other.sameQuantity("a", "b"), "quantity(a).compareTo(quantity(b)) == 0"; got != want {
		t.Errorf("sameQuantity = %q, want %q", got, want)
	}
}

// inline writes out the variables that are paths or constants or used
// once, innermost last, and keeps those used more than once.
func TestInline(t *testing.T) {
	t.Parallel()
	vars := []Variable{
		{"spec", "object.spec"},
		{"ctrs", "variables.spec.containers + variables.spec.?initContainers.orValue([])"},
		{"gpu", "variables.ctrs.filter(c, f(c))"},
		{"isGPU", "size(variables.gpu) > 0"},
		{"cap", "8"},
		{"specs", "variables.spec.x"},
	}
	vals := []Validation{
		{Expression: "variables.isGPU || variables.gpu == []"},
		{Expression: "!variables.isGPU || variables.specs < variables.cap", MessageExpression: "string(variables.cap)"},
	}
	gotVars, gotVals := inline(vars, vals)
	wantVars := []Variable{
		{"gpu", "(object.spec.containers + object.spec.?initContainers.orValue([])).filter(c, f(c))"},
		{"isGPU", "size(variables.gpu) > 0"},
	}
	wantVals := []Validation{
		{Expression: "variables.isGPU || variables.gpu == []"},
		{Expression: "!variables.isGPU || object.spec.x < 8", MessageExpression: "string(8)"},
	}
	if diff := cmp.Diff(wantVars, gotVars); diff != "" {
		t.Errorf("variables (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantVals, gotVals, cmp.AllowUnexported(Validation{})); diff != "" {
		t.Errorf("validations (-want +got):\n%s", diff)
	}
}

// The native pods policy keeps only variables used more than once, parses
// no quantity to find a GPU pod, and runs no regular expression for the
// default cap; the mutating policy, which runs before validation, still
// parses.
func TestNativePodPolicyIsLean(t *testing.T) {
	t.Parallel()
	s := Defaults()
	vars, vals := gen{s: s, native: true}.merged(podShape, s.nativeRules(podShape))
	var names []string
	for _, v := range vars {
		names = append(names, v.Name)
	}
	if diff := cmp.Diff([]string{"rules", "containers", "gpuContainers", "isGPU", "tolerated", "appUnits", "initUnits"}, names); diff != "" {
		t.Errorf("variables (-want +got):\n%s", diff)
	}
	all := ""
	for _, v := range vars {
		all += v.Expression + "\n"
	}
	for _, v := range vals {
		all += v.Expression + "\n" + v.MessageExpression + "\n"
	}
	for _, bad := range []string{"isGreaterThan", "'^(?:[^/]*)$'", "variables.spec"} {
		if strings.Contains(all, bad) {
			t.Errorf("native pods policy holds %q", bad)
		}
	}
	m := s.mutation().Objects[0].Spec.(mapSpec).MatchConditions[0].Expression
	if !strings.Contains(m, "quantity(string(c.resources.limits[r])).isGreaterThan(quantity('0'))") {
		t.Errorf("mutating condition %q: want the quantity comparison", m)
	}
}

// violation is the negation of every validation with every variable
// written out, later variables (which use earlier ones) first, and the
// fixed one replaced by its value wherever it is used.
func TestViolation(t *testing.T) {
	t.Parallel()
	vars := []Variable{{"a", "object.x"}, {"b", "variables.a.y"}, {"gpu", "size(variables.a) > 0"}, {"c", "variables.gpu && variables.b"}}
	vals := []Validation{{Expression: "variables.b > 0"}, {Expression: "variables.a == variables.b"}, {Expression: "!variables.gpu || variables.c"}}
	want := "!(((object.x).y) > 0) || !((object.x) == ((object.x).y)) || !(!true || (true && ((object.x).y)))"
	if got := violation(vars, vals, "gpu", "true"); got != want {
		t.Errorf("violation =\n%q, want\n%q", got, want)
	}
}

// The native match condition reads no variable (the API server refuses
// them there) and holds every validation's negation, once for GPU pods
// and once for the others.
func TestNativeConditionHoldsEveryValidation(t *testing.T) {
	t.Parallel()
	s := Defaults()
	for _, sh := range []shape{podShape, workloadShape, cronJobShape} {
		a := s.native(sh, s.nativeRules(sh))
		spec := a.Objects[0].Spec.(vapSpec)
		mc := spec.MatchConditions[0].Expression
		if strings.Contains(mc, "variables.") {
			t.Errorf("%s: match condition reads variables: %s", sh.name(), mc)
		}
		if got, want := strings.Count(mc, "!(!('"+RuleLabelPrefix), 2*len(spec.Validations); got != want {
			t.Errorf("%s: %d negated validations in the match condition, want %d", sh.name(), got, want)
		}
	}
}
