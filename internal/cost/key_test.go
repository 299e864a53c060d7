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
