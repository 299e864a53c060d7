package render

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// One money family (issue 24.10): no file of render but money.go writes a
// dollar sign before a number or formats an amount to the cent itself (a
// float to two decimals, a whole number of cents as dollars, a rounding to
// the cent); a new format that does fails here and names the line. The
// showback file's formatters are in the family too.
func TestDollarsAreFormattedInMoneyGoOnly(t *testing.T) {
	t.Parallel()
	outside := regexp.MustCompile(`\$%|"\$"\s*\+|%\.2f|FormatFloat\(.*'f', 2,|FormatInt\([^,]*/100,|\*\s*100\)\s*/\s*100`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked, showback := 0, false
	for _, f := range files {
		showback = showback || f == "showback.go"
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
	if !showback {
		t.Fatal("showback.go was not checked")
	}
	for _, planted := range []string{
		`"$" + plainUSD(v)`,
		`fmt.Sprintf("$%.2f", v)`,
		// The showback formatters that lived in showback.go before they
		// joined the family.
		`strconv.FormatFloat(math.Round(v*100)/100, 'f', 2, 64)`,
		`strconv.FormatInt(c/100, 10) + "." + strconv.FormatInt(100+c%100, 10)[1:]`,
		`math.Round(v * 100) / 100`,
	} {
		if !outside.MatchString(planted) {
			t.Errorf("the pattern misses %q", planted)
		}
	}
}
