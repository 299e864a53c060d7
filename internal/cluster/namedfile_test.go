package cluster

import (
	"strings"
	"testing"
)

// FuzzParseNamedFile feeds --from values (app.ParseClusterFile). A
// NAME=FILE value names its cluster with a non-empty name holding no path
// separator and gives back exactly what it split; anything else is a path,
// kept whole, whose cluster name (its base name) holds no separator.
func FuzzParseNamedFile(f *testing.F) {
	for _, s := range []string{"snap.json.gz", "prod=snap.json.gz", "=x", "a/b=c", `c:\x=y`, "prod=", "x==y", "../a.b.c", "", "/", ".hidden"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, path := ParseNamedFile(s)
		if name != "" {
			if strings.ContainsAny(name, `/\=`) || name+"="+path != s {
				t.Fatalf("%q parsed as name %q, path %q", s, name, path)
			}
			return
		}
		if path != s {
			t.Fatalf("%q parsed as path %q", s, path)
		}
		if n := FileClusterName(path); strings.Contains(n, "/") && n != "/" {
			t.Fatalf("%q: cluster name %q holds a separator", s, n)
		}
	})
}

func TestParseNamedFile(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{"prod=a.json.gz": {"prod", "a.json.gz"}, "a.json.gz": {"", "a.json.gz"},
		"dir/x=y.gz": {"", "dir/x=y.gz"}, "=a": {"", "=a"}} {
		if n, p := ParseNamedFile(in); n != want[0] || p != want[1] {
			t.Errorf("ParseNamedFile(%q) = %q, %q; want %q, %q", in, n, p, want[0], want[1])
		}
	}
	if got := FileClusterName("/data/prod.json.gz"); got != "prod" {
		t.Errorf("FileClusterName = %q", got)
	}
}
