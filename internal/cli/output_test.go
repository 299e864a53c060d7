package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// A result that cannot be written has its own exit code, 7, not the input
// error's 3 (issue 16 item 15).
func TestWriteErrorsExitOutput(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	notADir := filepath.Join(t.TempDir(), "file")
	if _, _, code := run(t, "demo", "--save", notADir, "-o", "json"); code != ExitOK {
		t.Fatalf("demo --save into a fresh path: exit %d", code)
	}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"demo --save into a missing directory", []string{"demo", "--save", filepath.Join(missing, "snap.json.gz"), "-o", "json"}, missing},
		{"generate -d under a file", []string{"generate", "resources", "--demo", "-d", filepath.Join(notADir, "out")}, notADir + ": not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, tt.args...)
			if code != ExitOutput || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d naming the path", code, errOut, ExitOutput)
			}
		})
	}
}
