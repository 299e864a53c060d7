package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestOneGPUTaintSpelling: every output gpuwise writes for the demo — the
// audit's fixes in every format, generated files, the advise plan — spells
// the GPU taint one way, the seeds' nvidia.com/gpu=true:NoSchedule (issue
// 27: audit wrote nvidia.com/gpu=present and generate nodepool =true).
func TestOneGPUTaintSpelling(t *testing.T) {
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	taint := regexp.MustCompile(`nvidia\.com/gpu=([A-Za-z0-9_.-]*):?([A-Za-z]*)`)
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range taint.FindAllStringSubmatch(string(b), -1) {
			seen++
			if m[1] != "true" || m[2] != "NoSchedule" {
				t.Errorf("%s spells the GPU taint %q, want nvidia.com/gpu=true:NoSchedule", f, m[0])
			}
		}
	}
	if seen == 0 {
		t.Error("no GPU taint in any golden output: the check proves nothing")
	}
	t.Logf("%d GPU taint spellings checked", seen)
}
