package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/shareddata"
)

// packbenchDataDir is the shared openb trace, relative to this package.
const packbenchDataDir = "../../../shared/data/openb"

func TestPackbenchBadFlags(t *testing.T) {
	t.Parallel()
	shareddata.Need(t, packbenchDataDir)
	nodes := filepath.Join(packbenchDataDir, "openb_node_list_gpu_node.csv")
	pods := filepath.Join(packbenchDataDir, "openb_pod_list_default.csv")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"unknown policy", []string{"--nodes", nodes, "--pods", pods, "--policy", "worstfit"}, exitUsage, `--policy: "worstfit" is not one of bestfit, fgd, gpuwise`},
		{"bad seed range", []string{"--nodes", nodes, "--pods", pods, "--seeds", "51-42"}, exitUsage, `--seeds: "51-42" has the range "51-42", which must go up`},
		{"seed not a number", []string{"--nodes", nodes, "--pods", pods, "--seeds", "x"}, exitUsage, "want a range like 42-51, a seed like 42 or a list like 42,45"},
		{"missing flags", nil, exitUsage, "--nodes: required"},
		{"missing nodes file", []string{"--nodes", "nope.csv", "--pods", pods}, exitInput, "open nope.csv"},
		{"missing pods file", []string{"--nodes", nodes, "--pods", "nope-pods.csv"}, exitInput, "open nope-pods.csv"},
		{"malformed pods file", []string{"--nodes", nodes, "--pods", nodes}, exitInput, "openb_node_list_gpu_node.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := execute(append([]string{"packbench"}, tt.args...), &out, &errOut)
			if code != tt.wantCode || !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut.String(), tt.wantCode, tt.wantErr)
			}
		})
	}
}

func TestParseSeeds(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"42-51": 10, "42": 1, "42,45": 2, "42-44,50": 4} {
		got, err := parseSeeds(in)
		if err != nil || len(got) != want {
			t.Errorf("parseSeeds(%q) = %v, %v; want %d seeds", in, got, err, want)
		}
	}
}

// TestPackbenchCSVMatchesPublished runs BestFit on seed 42 and compares
// the row with the published one, cell for cell as text, for the default
// pod list and for its 5-column shape (the default trace has no gpu_spec,
// and the simulator reads nothing else that the 5 columns lack).
func TestPackbenchCSVMatchesPublished(t *testing.T) {
	t.Parallel()
	shareddata.Need(t, packbenchDataDir)
	full := filepath.Join(packbenchDataDir, "openb_pod_list_default.csv")
	for name, pods := range map[string]string{"11 columns": full, "5 columns": fiveColumnCopy(t, full)} {
		t.Run(name, func(t *testing.T) { checkPublishedBestFit42(t, pods) })
	}
}

// fiveColumnCopy writes the first five columns of an openb pod list into a
// temporary file.
func fiveColumnCopy(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := readPackbenchRows(t, f)
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, r := range rows {
		if err := w.Write(r[:5]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	out := filepath.Join(t.TempDir(), "openb_pod_list_default_5col.csv")
	if err := os.WriteFile(out, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkPublishedBestFit42(t *testing.T, pods string) {
	for _, metric := range []string{"alloc", "frag"} {
		var out bytes.Buffer
		o := &packbenchOptions{Nodes: filepath.Join(packbenchDataDir, "openb_node_list_gpu_node.csv"), Pods: pods,
			Policy: "bestfit", Seeds: "42", MaxDemand: 130, Tune: 1.3, Mix: "default", Output: "csv", Metric: metric, Jobs: 1}
		if err := runPackbench(o, &out, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		got := readPackbenchRows(t, &out)
		f, err := os.Open(filepath.Join(packbenchDataDir, "fgd_results_"+metric+"_default.csv"))
		if err != nil {
			t.Fatal(err)
		}
		want := readPackbenchRows(t, f)
		f.Close()
		if strings.Join(got[0], ",") != strings.Join(want[0], ",") {
			t.Errorf("%s header differs:\n got %v\nwant %v", metric, got[0], want[0])
		}
		for _, row := range want[1:] {
			if row[1] == "05-BestFit" && row[3] == "42" {
				n := len(row)
				if g := strings.Join(got[1][n-131:], ","); g != strings.Join(row[n-131:], ",") {
					t.Errorf("%s seed 42 cells differ:\n got %s\nwant %s", metric, g, strings.Join(row[n-131:], ","))
				}
			}
		}
	}
}

func readPackbenchRows(t *testing.T, r interface{ Read([]byte) (int, error) }) [][]string {
	t.Helper()
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestPackbenchJSON(t *testing.T) {
	t.Parallel()
	shareddata.Need(t, packbenchDataDir)
	var out bytes.Buffer
	o := &packbenchOptions{Nodes: filepath.Join(packbenchDataDir, "openb_node_list_gpu_node.csv"), Pods: filepath.Join(packbenchDataDir, "openb_pod_list_default.csv"),
		Policy: "fgd", Seeds: "42,43", MaxDemand: 130, Tune: 1.3, Mix: "default", Output: "json", Metric: "alloc", Jobs: 2}
	if err := runPackbench(o, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Policy    string             `json:"policy"`
		Seeds     []int64            `json:"seeds"`
		MeanAlloc map[string]float64 `json:"mean_alloc"`
		MeanFrag  map[string]float64 `json:"mean_frag"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if doc.Policy != "fgd" || len(doc.Seeds) != 2 || len(doc.MeanAlloc) != 131 || len(doc.MeanFrag) != 131 {
		t.Errorf("doc: policy %q, seeds %v, %d alloc and %d frag columns", doc.Policy, doc.Seeds, len(doc.MeanAlloc), len(doc.MeanFrag))
	}
	if a := doc.MeanAlloc["130"]; a < 94 || a > 97 {
		t.Errorf("mean alloc@130 = %v, want FGD's ~95.4", a)
	}
}
