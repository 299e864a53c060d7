package cli

import (
	"strings"
	"testing"
)

// TestLowUtilFlag (issue 26.5): the table lists the units under the
// threshold with node, model, holders and $; a malformed value is a usage
// error naming the form.
func TestLowUtilFlag(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "report", "--demo", "--low-util", "30%:6h")
	if code != ExitOK || !strings.Contains(out, "GPUs under 30% for 6 h or more") || !strings.Contains(out, "serve-h100-1/gpu5") ||
		!strings.Contains(out, "inference/Deployment/fraud-scorer") {
		t.Errorf("exit %d %s; want the low-utilization table:\n%s", code, errOut, out)
	}
	if plain, _, _ := run(t, "report", "--demo"); strings.Contains(plain, "GPUs under") {
		t.Error("the list is shown without --low-util")
	}
	if _, errOut, code := run(t, "report", "--demo", "--low-util", "30"); code != ExitUsage || !strings.Contains(errOut, "PERCENT%[:DURATION]") {
		t.Errorf("--low-util 30: exit %d, %q", code, errOut)
	}
}
