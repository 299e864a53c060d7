package pricing

import (
	"strings"
	"testing"
)

// Issue 31 low item: a second YAML document in --prices was ignored.
func TestSecondYAMLDocumentInPricesIsAnError(t *testing.T) {
	t.Parallel()
	one := "prices:\n  - match: {gpuModel: A100-80GB}\n    gpuUSDPerHour: 1.25\n"
	if _, err := ParseOverrides("p.yaml", []byte(one+"---\n")); err != nil {
		t.Errorf("a trailing empty document: %v", err)
	}
	_, err := ParseOverrides("p.yaml", []byte(one+"---\n"+one))
	if err == nil || !strings.Contains(err.Error(), "line 5: a second YAML document") {
		t.Errorf("two documents: %v, want an error naming line 5", err)
	}
	if _, err := ParseOverrides("p.yaml", []byte(one+"---\n: : [\n")); err == nil || !strings.Contains(err.Error(), "second YAML document") {
		t.Errorf("a broken second document: %v", err)
	}
}
