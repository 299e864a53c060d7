package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/render"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

func TestRecommendGolden(t *testing.T) {
	for _, f := range render.Formats {
		out, errOut, code := run(t, "recommend", "--demo", "-o", string(f))
		if code != ExitOK {
			t.Fatalf("recommend -o %s: exit %d: %s", f, code, errOut)
		}
		golden(t, "recommend."+string(f), out)
	}
}

// The demo cluster shows every GPU action, and the report's
// recommendations line carries the same total as recommend.
func TestRecommendDemoCoversEveryAction(t *testing.T) {
	out, _, code := run(t, "recommend", "--demo", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var r struct {
		Total float64 `json:"monthly_savings_usd"`
		GPU   []struct {
			Action rightsize.GPUAction `json:"action"`
		} `json:"gpu"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	seen := map[rightsize.GPUAction]int{}
	for _, g := range r.GPU {
		seen[g.Action]++
	}
	for _, a := range []rightsize.GPUAction{rightsize.KeepWhole, rightsize.UseMIG, rightsize.UseTimeSlice, rightsize.CheaperModel} {
		if seen[a] == 0 {
			t.Errorf("the demo has no %s recommendation (%v)", a, seen)
		}
	}
}

// TestSavingsFiguresAgree: recommend, the report and advise print ledger
// figures, and they are the same ledger's.
func TestSavingsFiguresAgree(t *testing.T) {
	l := adviseJSON(t, "--demo")
	out, _, _ := run(t, "recommend", "--demo", "-o", "json")
	var rec struct {
		Ledger ledger.Part `json:"ledger"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	var rs float64
	for _, a := range l.Actions {
		if a.Kind == "repack" {
			rs += a.SavingUSDMonth
		}
	}
	if rec.Ledger.SavingUSDMonth != rs || rec.Ledger.LedgerSavingUSDMonth != l.SavingUSDMonth || rec.Ledger.Name != ledger.PartRightSizing {
		t.Errorf("recommend's ledger part %+v; advise: right-sizing %v of %v", rec.Ledger, rs, l.SavingUSDMonth)
	}
	report, _, _ := run(t, "report", "--demo", "-o", "json")
	var rep struct {
		Savings render.Savings `json:"savings"`
	}
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Savings
	if s.SavingUSDMonth != l.SavingUSDMonth || s.BeforeUSDMonth != l.BeforeUSDMonth || len(s.First) != 3 || s.First[0].ID != l.Summary.First[0].ID {
		t.Errorf("report savings %+v, advise saves %v of %v first %v", s, l.SavingUSDMonth, l.BeforeUSDMonth, l.Summary.First)
	}
}

func TestRecommendFormatsAndErrors(t *testing.T) {
	for _, f := range []string{"yaml", "csv"} {
		out, _, code := run(t, "recommend", "--demo", "-o", f)
		if code != ExitOK || !strings.Contains(out, "inference/Deployment/fraud-scorer") {
			t.Errorf("-o %s: exit %d, output lacks a workload", f, code)
		}
	}
	if _, _, code := run(t, "recommend", "--demo", "-o", "xml"); code != ExitUsage {
		t.Errorf("-o xml: exit %d, want %d", code, ExitUsage)
	}
	bad := filepath.Join(t.TempDir(), "policy.yaml")
	os.WriteFile(bad, []byte("cpu: {percentile: 1.5}\ngpu: {memoryHeadroom: -0.2}\n"), 0o644)
	_, errOut, code := run(t, "recommend", "--demo", "--policy", bad)
	if code != ExitInput || !strings.Contains(errOut, "cpu.percentile") || !strings.Contains(errOut, "gpu.memoryHeadroom") {
		t.Errorf("bad policy: exit %d, stderr %q", code, errOut)
	}
	if _, _, code := run(t, "recommend", "--demo", "--policy", filepath.Join(t.TempDir(), "missing.yaml")); code != ExitInput {
		t.Errorf("missing policy: exit %d, want %d", code, ExitInput)
	}
}

func TestGenerateGolden(t *testing.T) {
	for _, kind := range []string{"resources", "vpa", "timeslicing", "mig"} {
		out, errOut, code := run(t, "generate", kind, "--demo")
		if code != ExitOK {
			t.Fatalf("generate %s: exit %d: %s", kind, code, errOut)
		}
		golden(t, "generate-"+kind+".yaml", out)
	}
	dir := t.TempDir()
	if _, errOut, code := run(t, "generate", "mig", "--demo", "-d", dir); code != ExitOK {
		t.Fatalf("generate mig -d: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "mig-parted", "configmap.yaml")); err != nil {
		t.Errorf("generate -d wrote no mig-parted/configmap.yaml: %v", err)
	}
}

// generate mig and generate plan write the same MIG layout for every node
// (issue 10 item 3): both come from the planner.
func TestGenerateMIGMatchesPlanOnDemo(t *testing.T) {
	mig, errOut, code := run(t, "generate", "mig", "--demo")
	if code != ExitOK {
		t.Fatalf("generate mig: exit %d: %s", code, errOut)
	}
	plan, errOut, code := run(t, "generate", "plan", "--demo")
	if code != ExitOK {
		t.Fatalf("generate plan: exit %d: %s", code, errOut)
	}
	migDocs, planDocs := streamFiles(mig), streamFiles(plan)
	if len(migDocs) == 0 || migDocs["mig-parted/configmap.yaml"] == "" {
		t.Fatalf("generate mig wrote no mig-parted config: %v", migDocs)
	}
	for path, doc := range migDocs {
		if planDocs[path] != doc {
			t.Errorf("%s differs between generate mig and generate plan:\n%s", path, cmp.Diff(planDocs[path], doc))
		}
	}
}

// streamFiles splits a generate stream into its "# file: PATH" documents.
func streamFiles(stream string) map[string]string {
	out := map[string]string{}
	for _, doc := range strings.Split(stream, "\n---\n") {
		first, rest, _ := strings.Cut(strings.TrimPrefix(doc, "---\n"), "\n")
		if path, ok := strings.CutPrefix(first, "# file: "); ok {
			out[path] = strings.TrimRight(rest, "\n")
		}
	}
	return out
}

// The recommend table shows whole pods and one unit per column: cores and
// GiB, never "1024Gi → 534432Mi" (issue 16 item 23).
func TestRecommendTableUnits(t *testing.T) {
	out, errOut, code := run(t, "recommend", "--demo")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	gpu, containers, _ := strings.Cut(out, "CPU and memory requests per container")
	// A saving may be negative: a share too small for its peak grows.
	gpuRow := regexp.MustCompile(`^  \S+\s+(-?\$[\d,.]+|n/a)\s+\d+\s{2}`)
	rows := 0
	for _, l := range strings.Split(gpu, "\n") {
		if strings.HasPrefix(l, "  ") && strings.Contains(l, " × ") {
			rows++
			if !gpuRow.MatchString(l) {
				t.Errorf("GPU row without a whole pod count after $/month: %q", l)
			}
		}
	}
	if rows == 0 {
		t.Fatalf("no GPU rows in:\n%s", gpu)
	}
	if !strings.Contains(containers, "CPU (CORES)") || !strings.Contains(containers, "MEMORY (GIB)") {
		t.Errorf("container table does not name its units:\n%s", containers)
	}
	if unit := regexp.MustCompile(`\d(Gi|Mi|m)\b`).FindString(containers); unit != "" {
		t.Errorf("container table mixes units in its cells (%q)", unit)
	}
}
