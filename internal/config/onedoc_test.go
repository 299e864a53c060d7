package config

import (
	"strings"
	"testing"
)

// Issue 31 low item: a second YAML document in --policy was ignored.
func TestSecondYAMLDocumentInPolicyIsAnError(t *testing.T) {
	t.Parallel()
	one := "gpu:\n  activityPercentile: 0.9\n"
	if _, err := ParsePolicies("p.yaml", []byte(one+"---\n")); err != nil {
		t.Errorf("a trailing empty document: %v", err)
	}
	_, err := ParsePolicies("p.yaml", []byte(one+"---\nautoscaling:\n  minReplicas: 2\n"))
	if err == nil || !strings.Contains(err.Error(), "line 4: a second YAML document") {
		t.Errorf("two documents: %v, want an error naming line 4", err)
	}
}
