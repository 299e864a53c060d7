package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generate resources refuses a wave percent outside 1–100, naming the
// flag, before it reads any data.
func TestGenerateResourcesRefusesABadWavePercent(t *testing.T) {
	for _, pct := range []string{"0", "101", "-5"} {
		_, errOut, code := run(t, "generate", "resources", "--demo", "--wave-percent", pct)
		if code != ExitUsage || !strings.Contains(errOut, "--wave-percent "+pct) || !strings.Contains(errOut, "from 1 to 100") {
			t.Errorf("--wave-percent %s: exit %d, stderr %q; want %d naming the flag", pct, code, errOut, ExitUsage)
		}
	}
}

// --wave-percent sets the waves' size: 50 % of the demo's patched
// workloads (50) is two waves, the first rounded up, and -d writes each wave's three
// scripts beside the patches they apply.
func TestGenerateResourcesWavesUnderDir(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := run(t, "generate", "resources", "--demo", "--wave-percent", "50", "-d", dir); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []string{"rollout/waves.md", "rollout/wave-01/apply.sh", "rollout/wave-01/check.sh", "rollout/wave-01/rollback.sh", "rollout/wave-02/apply.sh"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "rollout", "wave-03")); err == nil {
		t.Error("a third wave at 50 %")
	}
	md, err := os.ReadFile(filepath.Join(dir, "rollout", "waves.md"))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscanf(string(md), "# Rollout: %d workloads in 2 waves", &n); err != nil || n < 2 {
		t.Fatalf("waves.md does not start with the workloads in 2 waves (%v):\n%.300s", err, md)
	}
	first := (n + 1) / 2
	if !strings.Contains(string(md), fmt.Sprintf("| 1 | 1 | %d |", first)) || !strings.Contains(string(md), fmt.Sprintf("| 2 | 2 | %d |", n-first)) {
		t.Errorf("waves.md does not split %d workloads %d + %d:\n%.600s", n, first, n-first, md)
	}
	apply, err := os.ReadFile(filepath.Join(dir, "rollout", "wave-01", "apply.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(apply), "\n") {
		if i := strings.Index(line, "--patch-file "); i >= 0 {
			if _, err := os.Stat(filepath.Join(dir, strings.TrimSpace(line[i+len("--patch-file "):]))); err != nil {
				t.Errorf("apply.sh names a patch file that is not there: %v", err)
			}
		}
	}
}

// --wave-history leaves the workloads apply.sh recorded out of the new
// waves, and a missing or malformed history is an input error naming it.
func TestGenerateResourcesWaveHistory(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "history.tsv")
	if err := os.WriteFile(hist, []byte("2026-12-02T14:00:00Z\tapplied\twave-01\tweb/Deployment/storefront\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "generate", "resources", "--demo", "--wave-history", hist)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "# | web/Deployment/storefront | applied in wave-01 at 2026-12-02T14:00:00Z (wave history) | $0.00 |") {
		t.Error("waves.md does not list storefront as applied before")
	}
	if strings.Contains(out, `"$KUBECTL" patch deployment storefront`) {
		t.Error("a new wave patches storefront again")
	}
	if !strings.Contains(out, "# patches/web/deployment-storefront.yaml") && !strings.Contains(out, "# file: patches/web/deployment-storefront.yaml") {
		t.Error("storefront's patch file is gone; only the waves leave it out")
	}
	for _, tt := range []struct{ name, body, want string }{
		{"missing", "", "no-such.tsv"},
		{"malformed", "yesterday\tapplied\twave-01\tweb/Deployment/storefront\n", "line 1: time \"yesterday\""},
	} {
		path := filepath.Join(dir, "no-such.tsv")
		if tt.body != "" {
			path = filepath.Join(dir, tt.name+".tsv")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, errOut, code := run(t, "generate", "resources", "--demo", "--wave-history", path)
		if code != ExitInput || !strings.Contains(errOut, "--wave-history") || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s history: exit %d, stderr %q; want %d naming --wave-history and %q", tt.name, code, errOut, ExitInput, tt.want)
		}
	}
}
