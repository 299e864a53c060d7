package policy_test

import (
	"testing"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// Each admission rule names the audit rule it enforces; the IDs must stay
// the audit's (engines do not import each other, so this test ties them).
func TestRulesNameRealAuditRules(t *testing.T) {
	t.Parallel()
	want := map[string]string{"GW002": audit.RuleNonGPUPod, "GW003": audit.RuleLimits, "GW004": audit.RuleNoToleration, "GW006": audit.RuleDevWholeGPU}
	seen := 0
	for _, r := range policy.Rules {
		if r.Audit == "" {
			continue
		}
		seen++
		if _, ok := audit.RuleByID(r.Audit); !ok || want[r.Audit] != r.Audit {
			t.Errorf("rule %s names audit rule %q, which is not the one it enforces", r.Name, r.Audit)
		}
	}
	if seen != len(want) {
		t.Errorf("%d rules name an audit rule, want %d", seen, len(want))
	}
}
