package param

import (
	"go/parser"
	"go/token"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseAndFormatWindow(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "1.5d": 36 * time.Hour, "36h": 36 * time.Hour, "90m": 90 * time.Minute, "366d": MaxWindow} {
		if got, err := ParseWindow(in); err != nil || got != want {
			t.Errorf("ParseWindow(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0d", "-1d", "NaNd", "1e400d", "367d", "59m", "7", "abc", "3000000h"} {
		if _, err := ParseWindow(in); err == nil || !strings.HasPrefix(err.Error(), "window: ") {
			t.Errorf("ParseWindow(%q) = %v; want an error naming the window", in, err)
		}
	}
	for d, want := range map[time.Duration]string{7 * 24 * time.Hour: "7d", 36 * time.Hour: "36h", 90 * time.Minute: "1h30m0s"} {
		if got := FormatWindow(d); got != want {
			t.Errorf("FormatWindow(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestQueryCollectsEveryProblem: one request's problems are all listed,
// unknown parameters first and in name order, each naming what is wrong;
// a malformed value yields zero, an absent one the default.
func TestQueryCollectsEveryProblem(t *testing.T) {
	t.Parallel()
	v, err := url.ParseQuery("zeta=1&alpha=2&top=x&window=59m&from=yesterday&by=a&by=b&idle-threshold=0.2")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC)
	q := New(v, []string{"top", "window", "from", "by", "idle-threshold", "to"})
	if got := q.Int("top", 10); got != 0 {
		t.Errorf("top=x read as %d, want 0 (with a problem)", got)
	}
	if got := q.Window(); got != 0 {
		t.Errorf("window=59m read as %v", got)
	}
	if got := q.Time("from", now.Add(-time.Hour), now); !got.Equal(now.Add(-time.Hour)) {
		t.Errorf("from=yesterday read as %v, want the default", got)
	}
	if got := q.Time("to", now, now); !got.Equal(now) {
		t.Errorf("absent to read as %v, want the default", got)
	}
	if got := q.Str("by", ""); got != "a" {
		t.Errorf("by read as %q, want the first", got)
	}
	if got := q.Float("idle-threshold", 0.1); got != 0.2 {
		t.Errorf("idle-threshold read as %v", got)
	}
	want := []string{
		`unknown parameter "alpha" (this endpoint takes top, window, from, by, idle-threshold, to)`,
		`unknown parameter "zeta" (this endpoint takes top, window, from, by, idle-threshold, to)`,
		`top: "x" is not a whole number`,
		`window: window: "59m" is shorter than the minimum, 1h`,
		`from: "yesterday" is neither an RFC 3339 time nor a duration before now (e.g. 7d)`,
		`by: given 2 times`,
	}
	if got := q.Problems(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := New(v, nil).Problems(); len(got) != len(v) || !strings.Contains(got[0], "this endpoint takes none") {
		t.Errorf("an endpoint with no parameters: %q", got)
	}
}

// TestImportsTheStandardLibraryOnly keeps the package light (doc.go): a
// gpuwise import would grow FuzzQueryParams's instrumented binary again.
func TestImportsTheStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			if p := strings.Trim(im.Path.Value, `"`); strings.Contains(p, ".") {
				t.Errorf("%s imports %s: param imports the standard library only", name, p)
			}
		}
	}
}
