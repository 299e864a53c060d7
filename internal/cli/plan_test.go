package cli

import (
	"cmp"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/render"
)

// The demo cluster's plan is golden in every format a person or a machine
// reads.
func TestPlanDemoGolden(t *testing.T) {
	for _, f := range render.Formats {
		out, errOut, code := run(t, "plan", "--demo", "-o", string(f))
		if code != ExitOK {
			t.Fatalf("-o %s: exit %d: %s", f, code, errOut)
		}
		ext := map[render.Format]string{render.Table: "txt", render.Markdown: "md"}[f]
		golden(t, "plan_demo."+cmp.Or(ext, string(f)), out)
	}
}

func TestPlanDemoNumbers(t *testing.T) {
	out, _, code := run(t, "plan", "--demo", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var pl packing.Plan
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatal(err)
	}
	if pl.After.Nodes >= pl.Before.Nodes || pl.SavingsUSDPerMonth == nil || *pl.SavingsUSDPerMonth <= 0 || len(pl.Unplaced) != 0 {
		t.Errorf("before %d nodes, after %d, saves %v, unplaced %d", pl.Before.Nodes, pl.After.Nodes, pl.SavingsUSDPerMonth, len(pl.Unplaced))
	}
	cur, _, _ := run(t, "plan", "--demo", "-o", "json", "--shapes", "current")
	var plc packing.Plan
	if err := json.Unmarshal([]byte(cur), &plc); err != nil {
		t.Fatal(err)
	}
	if *plc.After.USDPerMonth < *pl.After.USDPerMonth {
		t.Errorf("current shapes cost less (%.2f) than right-sized ones (%.2f)", *plc.After.USDPerMonth, *pl.After.USDPerMonth)
	}
}

func TestPlanBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "--demo", "-o", "sarif"},
		{"plan", "--demo", "--shapes", "smaller"},
		{"plan", "--demo", "--from", "x.json.gz"},
	} {
		_, errOut, code := run(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d (%s), want %d", args, code, errOut, ExitUsage)
		}
	}
	_, errOut, code := run(t, "plan", "--from", "/nonexistent.json.gz")
	if code != ExitInput || !strings.Contains(errOut, "nonexistent") {
		t.Errorf("missing file: exit %d %q", code, errOut)
	}
}

func TestGeneratePlanDemo(t *testing.T) {
	out, errOut, code := run(t, "generate", "plan", "--demo")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"# file: mig-parted/configmap.yaml", "config.yaml", "# file: plan/remove-nodes.sh",
		"kubectl drain nb-a100-2", "mig-parted/apply.sh"} {
		if !strings.Contains(out, want) {
			t.Errorf("generate plan output lacks %q", want)
		}
	}
	golden(t, "plan_demo_generate.yaml", out)
}
