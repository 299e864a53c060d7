package pricing

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// overrideFixtures lists the fixture files in a testdata/overrides folder,
// leaving out golden files.
func overrideFixtures(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "overrides", dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".golden" && ext != ".err" {
			out = append(out, f)
		}
	}
	return out
}

// checkGolden compares got with the golden file, or rewrites it.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// dumpOverrides writes the parsed rules, in match order, one per line.
func dumpOverrides(o *Overrides) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d rules from %s\n", o.Len(), filepath.Base(o.File()))
	for _, r := range o.rules {
		fmt.Fprintf(&b, "kind %d: %s", r.kind, r.describe())
		for _, p := range []struct {
			name string
			v    *float64
		}{{fNodeUSD, r.nodeUSD}, {fGPUUSD, r.gpuUSD}, {fCPUUSD, r.cpuUSD}, {fMemUSD, r.memUSD}, {fDiscount, r.discount}} {
			if p.v != nil {
				fmt.Fprintf(&b, " %s=%v", p.name, *p.v)
			}
		}
		b.WriteString("\n")
	}
	for _, w := range o.Warnings() {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

func TestParseOverridesGood(t *testing.T) {
	t.Parallel()
	for _, path := range overrideFixtures(t, "good") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			o, err := ParseOverrides(filepath.Base(path), data)
			if err != nil {
				t.Fatalf("ParseOverrides: %v", err)
			}
			checkGolden(t, path+".golden", dumpOverrides(o))
		})
	}
}

func TestParseOverridesBad(t *testing.T) {
	t.Parallel()
	for _, path := range overrideFixtures(t, "bad") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			o, err := ParseOverrides(filepath.Base(path), data)
			if err == nil {
				t.Fatalf("ParseOverrides succeeded with %d rules, want an error", o.Len())
			}
			var oe *OverridesError
			if !errors.As(err, &oe) {
				t.Fatalf("error is %T, want *OverridesError", err)
			}
			checkGolden(t, path+".err", err.Error()+"\n")
		})
	}
}

// YAML and CSV spellings of the same rules parse to the same rules.
func TestParseOverridesFormatsAgree(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"example", "qualifiers"} {
		t.Run(name, func(t *testing.T) {
			dump := func(ext string) string {
				path := filepath.Join("testdata", "overrides", "good", name+ext)
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				o, err := ParseOverrides("prices"+ext, data)
				if err != nil {
					t.Fatal(err)
				}
				s := dumpOverrides(o)
				// Origins differ by format: "prices.yaml prices[0]" vs "prices.csv:3".
				for _, r := range o.rules {
					s = strings.ReplaceAll(s, r.origin, "ORIGIN")
				}
				return strings.ReplaceAll(s, "prices"+ext, "FILE")
			}
			if diff := cmp.Diff(dump(".yaml"), dump(".csv")); diff != "" {
				t.Errorf("yaml and csv differ (-yaml +csv):\n%s", diff)
			}
		})
	}
}

func FuzzParseOverrides(f *testing.F) {
	for _, dir := range []string{"good", "bad"} {
		for _, path := range overrideFixtures(f, dir) {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(filepath.Ext(path) == ".csv", data)
		}
	}
	nodes := []NodeSpec{
		node("p5").aws("us-east-1", "p5.48xlarge").gpus(8, "H100-80GB").cores(192).mem(2048).spec(),
		node("onprem").gpus(4, "A100-80GB").cores(64).mem(512).label("gpuwise.io/pool", "onprem-a100").spec(),
	}
	f.Fuzz(func(t *testing.T, csv bool, data []byte) {
		name := "prices.yaml"
		if csv {
			name = "prices.csv"
		}
		o, err := ParseOverrides(name, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "overrides file "+name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		c := Embedded().WithOverrides(o)
		for _, n := range nodes {
			if p, err := c.Price(n); err == nil && !(p.NodeUSDPerHour >= 0 && p.NodeUSDPerHour <= maxUSDPerHour[fNodeUSD]*1e3) {
				t.Fatalf("price of %s is %v", n.Name, p.NodeUSDPerHour)
			}
		}
	})
}
