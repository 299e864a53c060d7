package shareddata

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	present := t.TempDir()
	absent := filepath.Join(present, "openb")
	tests := []struct {
		name        string
		dir         string
		required    bool
		wantMissing bool
		wantMsg     string
	}{
		{"present", present, false, false, ""},
		{"present and required", present, true, false, ""},
		{"absent: skip names the folder", absent, false, true, absent + " not found: skipped"},
		{"absent and required: fail names the folder and the variable", absent, true, true, absent + " is missing and GPUWISE_REQUIRE_SHARED=1 requires it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, missing := check(tt.dir, tt.required)
			if missing != tt.wantMissing || !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("check(%q, %v) = %q, %v; want missing %v and %q", tt.dir, tt.required, msg, missing, tt.wantMissing, tt.wantMsg)
			}
		})
	}
}
