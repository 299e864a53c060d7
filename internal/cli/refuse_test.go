package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// Every command that reads a snapshot runs it through cluster.Prepare, so
// the same faults are refused the same way (exit 3, every problem named)
// whichever command reads them. The good twin of each file is accepted.
func TestEveryCommandRefusesInconsistentSnapshots(t *testing.T) {
	dir := t.TempDir()
	node := ct.Node("n1").GPUs(1, "H100-80GB").Obj()
	good := ct.Pod("web", "api").On("n1").Requests(1000, 1).Obj()
	snaps := map[string]cluster.Snapshot{
		"good":     {Window: ct.Window(24), Nodes: []cluster.Node{node}, Pods: []cluster.Pod{good}},
		"negative": {Window: ct.Window(24), Nodes: []cluster.Node{node}, Pods: []cluster.Pod{ct.Pod("web", "api").On("n1").Requests(-31000, 1).Obj()}},
		"dup-pod":  {Window: ct.Window(24), Nodes: []cluster.Node{node}, Pods: []cluster.Pod{good, good}},
	}
	wantErr := map[string]string{"negative": "CPU request (millicores) -31000 is negative", "dup-pod": "pod web/api: listed twice"}
	for name, s := range snaps {
		if err := snapshot.WriteFile(filepath.Join(dir, name+".json.gz"), &s); err != nil {
			t.Fatal(err)
		}
	}
	commands := [][]string{{"report"}, {"recommend"}, {"plan"}, {"generate", "resources"}}
	for _, cmd := range commands {
		for name := range snaps {
			t.Run(strings.Join(cmd, " ")+"/"+name, func(t *testing.T) {
				args := append(append([]string{}, cmd...), "--from", filepath.Join(dir, name+".json.gz"))
				_, errOut, code := run(t, args...)
				if name == "good" {
					if code != ExitOK {
						t.Errorf("exit %d on a consistent snapshot: %s", code, errOut)
					}
					return
				}
				if code != ExitInput || !strings.Contains(errOut, wantErr[name]) {
					t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, errOut, ExitInput, wantErr[name])
				}
			})
		}
	}
}

// An idle threshold the activity histogram cannot answer exactly is a
// usage error that names the thresholds it can (it was silently rounded:
// 0.095 counted 0.099 as idle while the note said "below 10%").
func TestIdleThresholdBetweenBucketsIsRefused(t *testing.T) {
	_, errOut, code := run(t, "demo", "--idle-threshold", "0.095")
	if code != ExitUsage || !strings.Contains(errOut, "below 0.09 or below 0.1 exactly") {
		t.Errorf("exit %d, stderr %q; want exit %d naming 0.09 and 0.1", code, errOut, ExitUsage)
	}
	out, errOut, code := run(t, "demo", "--idle-threshold", "0.07", "-o", "json")
	if code != ExitOK || !strings.Contains(out, `"idle_threshold": 0.07`) || !strings.Contains(out, "idle means below 7% activity") {
		t.Errorf("exit %d (%s): a whole-percent threshold must be echoed and noted as given", code, errOut)
	}
}

// Price files: an absurd or non-finite price is an input error (it printed
// "Cost $+,Inf/month" with exit 0), "1_000" is refused rather than read as
// 1000, Excel's byte order mark is accepted, and a rule that repeats an
// earlier rule's match is a warning in the report.
func TestPriceFileEdges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	huge := write("huge.yaml", "prices:\n  - match: {cloud: aws}\n    discount: 0.1\n  - match: {instanceType: p5.48xlarge}\n    nodeUSDPerHour: 1e308\n")
	underscore := write("underscore.csv", "match,value,node_usd_per_hour\ninstanceType,p5.48xlarge,1_000\n")
	bom := write("bom.csv", "\ufeffmatch,value,gpu_usd_per_hour\ngpuModel,A100-80GB,1.25\n")
	dup := write("dup.yaml", "prices:\n  - match: {gpuModel: A100-80GB}\n    gpuUSDPerHour: 1.25\n  - match: {gpuModel: A100-80GB}\n    gpuUSDPerHour: 2\n")
	tests := []struct {
		name, file string
		wantCode   int
		want       string
	}{
		{"1e308 $/h", huge, ExitInput, "1e+308 is above the limit of 10000 $ per node-hour"},
		{"underscore", underscore, ExitInput, `"1_000" is not a plain decimal number`},
		{"byte order mark", bom, ExitOK, "GPU cost report"},
		{"duplicate rule", dup, ExitOK, "dup.yaml prices[1] has the same match as prices[0], which wins: this rule is never used"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "demo", "--prices", tt.file)
			if code != tt.wantCode || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("exit %d, output %q…, stderr %q; want exit %d and %q", code, firstLine(out), errOut, tt.wantCode, tt.want)
			}
			if strings.Contains(out, "Inf") {
				t.Errorf("output shows an infinite cost")
			}
		})
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// A policy floor past int64 (or any sane machine) is an input error naming
// the field; it was silently ignored or recommended as 9223372036854775807.
func TestPolicyOverflowIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte("cpu: {min: \"1e20\"}\nmemory: {min: 9Ei}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "recommend", "--demo", "--policy", path)
	for _, field := range []string{`cpu.min: "1e20" is beyond the limit`, `memory.min: "9Ei" is beyond the limit`} {
		if code != ExitInput || !strings.Contains(errOut, field) {
			t.Errorf("exit %d, stderr %q; want exit %d naming %s", code, errOut, ExitInput, field)
		}
	}
}

// With every GPU node unpriced no format shows a cost of $0: the headline
// says n/a (unpriced) (it said "Cost $0/month" while plan said n/a), JSON
// writes null dollars.
func TestNothingPricedEndToEnd(t *testing.T) {
	n := ct.Node("dgx-1").Instance("dgx-a100-640gb", cluster.OnDemand).GPUs(2, "A100-80GB").Obj()
	n.Cloud = ""
	s := cluster.Snapshot{Window: ct.Window(24), Nodes: []cluster.Node{n},
		Pods: []cluster.Pod{ct.Pod("ml", "train").On("dgx-1").Holds("dgx-1/gpu0", 0.4, 24*3600).Obj()}}
	path := filepath.Join(t.TempDir(), "onprem.json.gz")
	if err := snapshot.WriteFile(path, &s); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "report", "--from", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if line := lineOf(out, "Cost "); !strings.Contains(line, "n/a (unpriced)") || strings.Contains(out, "$0") {
		t.Errorf("cost line %q (or a $0 elsewhere) with every node unpriced:\n%s", line, out)
	}
	js, _, _ := run(t, "report", "--from", path, "-o", "json")
	if !strings.Contains(js, `"total_cost_usd": null`) || !strings.Contains(js, `"unpriced": true`) {
		t.Errorf("json with every node unpriced lacks null dollars:\n%s", js)
	}
}

func lineOf(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return l
		}
	}
	return ""
}
