package cost

import (
	"strings"
	"testing"
)

// TestByLabelKeys (issue 26.7): --by label:KEY takes one Kubernetes label
// key; two keys or a key no pod can carry are refused, naming the fix.
func TestByLabelKeys(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"label:team", "label:app.kubernetes.io/name", "label:gpuwise.io/checkpoint-interval", "label:A_b-1.c"} {
		if _, err := keyFunc(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for by, want := range map[string]string{
		"label:team,label:env":             "run once per key (--by label:team)",
		"label:team,env":                   "groups by more than one key",
		"label:bad key!":                   "is not a label key",
		"label:-team":                      "is not a label key",
		"label:Example.com/x":              "prefix before / must be a DNS subdomain",
		"label:a/b/c":                      "is not a label key",
		"label:/x":                         "prefix",
		"label:" + strings.Repeat("x", 64): "at most 63",
	} {
		if _, err := keyFunc(by); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %q", by, err, want)
		}
	}
}

// A label no pod carries is said (issue 26.1: from Prometheus, pod labels
// are what kube-state-metrics' allow-list lets through).
func TestByMissingLabelIsNoted(t *testing.T) {
	t.Parallel()
	has := func(r *Report, s string) bool {
		for _, n := range r.Notes {
			if strings.Contains(n.Text, s) {
				return true
			}
		}
		return false
	}
	missing := report(t, unpricedFixture(), func(o *settings) { o.ReportOptions.By = "label:nope" })
	if !has(missing, "no pod carries the label nope") {
		t.Errorf("notes %+v: want the missing label named", missing.Notes)
	}
	if ns := report(t, unpricedFixture(), nil); has(ns, "no pod carries") {
		t.Error("a namespace report notes a missing label")
	}
}
