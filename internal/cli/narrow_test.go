package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNarrowTablesKeepTheirPoint (issue 26.7): at 80 columns diff keeps
// its idle-dollar change and advise its action text (other columns go,
// named, and -o wide shows them), every line fitting the terminal.
func TestNarrowTablesKeepTheirPoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json.gz"), filepath.Join(dir, "b.json.gz")
	run(t, "demo", "--save", a, "-o", "json")
	run(t, "demo", "--seed", "3", "--save", b, "-o", "json")
	out80 := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := Execute(args, Streams{Out: &out, Err: &errb, OutIsTTY: true, Width: 80}); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if n := utf8.RuneCountInString(ansi.ReplaceAllString(l, "")); n > 80 {
				t.Errorf("%v: line of %d columns: %q", args, n, l)
			}
		}
		return out.String()
	}
	diff := out80("diff", a, b)
	if !strings.Contains(diff, "change   total $ change") || !strings.Contains(diff, "GPU util before, after, change") {
		t.Errorf("diff at 80 columns lacks the idle $ change, or does not name what it left out:\n%.1200s", diff)
	}
	var d struct {
		Changes []struct {
			IdleUSD *float64 `json:"idle_usd_change"`
		} `json:"changes"`
	}
	js, _, _ := run(t, "diff", a, b, "-o", "json")
	if err := json.Unmarshal([]byte(js), &d); err != nil || len(d.Changes) == 0 {
		t.Fatalf("diff json: %v", err)
	}
	advise := out80("advise", "--demo")
	var ledger struct {
		Actions []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"actions"`
	}
	js, _, _ = run(t, "advise", "--demo", "-o", "json")
	if err := json.Unmarshal([]byte(js), &ledger); err != nil || len(ledger.Actions) == 0 {
		t.Fatalf("advise json: %v", err)
	}
	rows := map[string]string{} // the action table's row of each ID
	for _, l := range strings.Split(advise, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(l, "A") && rows[f[0]] == "" {
			rows[f[0]] = l
		}
	}
	for _, a := range ledger.Actions {
		words := strings.Fields(a.Title)
		if head := strings.Join(words[:min(3, len(words))], " "); !strings.Contains(rows[a.ID], head) {
			t.Errorf("advise at 80 columns: row %q lacks its action %q", rows[a.ID], a.Title)
		}
	}
	os.Remove(a)
}
