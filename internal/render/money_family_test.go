package render

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// One money family (issue 24.10): no file of render but money.go writes a
// dollar sign before a number or formats an amount to the cent itself; a
// new format that does fails here and names the line.
func TestDollarsAreFormattedInMoneyGoOnly(t *testing.T) {
	t.Parallel()
	outside := regexp.MustCompile(`\$%|"\$"\s*\+|%\.2f|FormatFloat\([^)]*'f', 2,`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if f == "money.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d formats money outside money.go (%q): use money, usdCents, plainUSD or a wrapper of them", f, i+1, m)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d files: the test reads the wrong directory", checked)
	}
	if !outside.MatchString(`"$" + plainUSD(v)`) || !outside.MatchString(`fmt.Sprintf("$%.2f", v)`) {
		t.Fatal("the pattern misses the formatters it looks for")
	}
}
