package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generate policy without a source writes the defaults and reads nothing;
// with the demo it learns the cluster and says what each rule would refuse.
func TestGeneratePolicy(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "generate", "policy")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "generate-policy.yaml", out)
	if errOut != "" {
		t.Errorf("defaults printed notes: %s", errOut)
	}
	_, errOut, code = run(t, "generate", "policy", "--demo", "--engine", "gatekeeper")
	if code != ExitOK || !strings.Contains(errOut, "GW003 gpu-container-limits: would refuse") {
		t.Errorf("exit %d, notes %s; want what GW003 would refuse in the demo", code, errOut)
	}
}

func TestGenerateQuota(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "generate", "quota", "--demo")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "generate-quota.yaml", out)
	if !strings.Contains(errOut, "pod lifetimes") {
		t.Errorf("notes %s: want the source of the need named", errOut)
	}
}

// generate kueue on the demo: a flavor per GPU product, the cohort and a
// ClusterQueue and LocalQueue per batch team; the $ is the ledger's.
func TestGenerateKueue(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "generate", "kueue", "--demo")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "generate-kueue.yaml", out)
	for _, want := range []string{"# file: kueue/cohort.yaml", "# file: kueue/clusterqueue-ml-training.yaml", "# file: kueue/localqueue-research.yaml",
		"savings ledger's queue lever"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !strings.Contains(errOut, "pods' lifetimes") {
		t.Errorf("notes %s: want the source of the need named", errOut)
	}
}

// Bad flags are usage errors (2) naming each; a bad settings file is an
// input error (3) naming the field.
func TestGeneratePolicyRefusals(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("mode: strict\ndevNamespaces: [\"dev-[\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"generate", "policy", "--engine", "opa", "--mode", "block"}, ExitUsage, []string{`engine "opa"`, `mode: "block"`}},
		{[]string{"generate", "policy", "--kyverno-legacy"}, ExitUsage, []string{"kyverno-legacy: only with --engine kyverno"}},
		{[]string{"generate", "policy", "--policy-settings", bad}, ExitInput, []string{"mode: want warn or deny", `devNamespaces[0]: "dev-[" is not a valid glob`}},
		{[]string{"audit", "--demo", "--policy-settings", bad}, ExitInput, []string{"mode: want warn or deny"}},
		{[]string{"generate", "quota", "--demo", "--percentile", "2", "--headroom", "-1"}, ExitUsage, []string{"percentile: 2", "headroom: -1"}},
		{[]string{"generate", "kueue", "--demo", "--percentile", "0", "--cohort", ""}, ExitUsage, []string{"percentile: 0", "cohort: empty"}},
		{[]string{"report", "--demo", "-o", "json", "--csv-table", "kueue"}, ExitUsage, []string{"--csv-table kueue picks the CSV table"}},
		{[]string{"report", "--demo", "-o", "csv", "--csv-table", "kueue"}, ExitInput, []string{"the snapshot has no Kueue queues"}},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, code, tc.code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: %q does not name %q", tc.args, errOut, w)
			}
		}
	}
}
