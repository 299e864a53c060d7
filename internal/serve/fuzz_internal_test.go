package serve

import (
	"encoding/base64"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// FuzzQueryParams feeds the API's query strings to the parameter reader
// of every route. A string url.ParseQuery refuses is a 400 (issue 31); an
// accepted one either lists problems or yields values within the limits
// the CLI's flags have; an unknown parameter is always a problem naming it.
func FuzzQueryParams(f *testing.F) {
	for _, s := range []string{"window=7d", "by=namespace&output=csv", "window=1e400d", "from=2026-11-01T00:00:00Z&to=7d", "top=-1&top=3",
		"engineer-rate=1e308", "kind=%zz", "window=3000000h", "nope=1", "output=", "step=day&kind=pod"} {
		f.Add(s)
	}
	rts := routes()
	now := time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return // answered 400 before any handler (TestBadPercentEncodingInAPIQueriesIs400)
		}
		for _, rt := range rts {
			q := newQuery(vals, rt)
			for _, p := range rt.Params {
				q.str(p.Name, p.Default)
				q.list(p.Name, nil)
				q.float(p.Name, 0)
				q.int(p.Name, 0)
				if d := q.duration(p.Name, 0); d != 0 && len(q.problems) == 0 && (d < app.MinWindow || d > app.MaxWindow) {
					t.Fatalf("%s %s=%q: duration %v accepted outside [%v, %v]", rt.Path, p.Name, vals.Get(p.Name), d, app.MinWindow, app.MaxWindow)
				}
				q.time(p.Name, now, now)
			}
			q.format(render.Formats)
			err := q.err()
			if (err == nil) != (len(q.problems) == 0) {
				t.Fatalf("%s: err %v with %d problems", rt.Path, err, len(q.problems))
			}
			for name := range vals {
				if !q.known[name] && (err == nil || !strings.Contains(err.Error(), "unknown parameter")) {
					t.Fatalf("%s: unknown parameter %q accepted", rt.Path, name)
				}
			}
		}
	})
}

// FuzzAuthFiles feeds the bearer-token and basic-auth files. A file is
// either refused with an error that names it and shows none of its
// content, or accepted; accepted users each pass with their own password
// and fail with another; no Authorization header panics the check.
func FuzzAuthFiles(f *testing.F) {
	f.Add([]byte("# users\nfinops:s3cr3t-pass\nops:another-pass\n"), "Basic Zm9vOmJhcg==")
	f.Add([]byte("0123456789abcdef0123\n"), "Bearer 0123456789abcdef0123")
	f.Add([]byte("short"), "Bearer ")
	f.Add([]byte("a:b:c:dddddddd\n\n  \n#x\n"), "Basic !!!")
	dir := f.TempDir()
	tokenFile, usersFile := filepath.Join(dir, "token"), filepath.Join(dir, "users")
	f.Fuzz(func(t *testing.T, content []byte, header string) {
		if err := os.WriteFile(tokenFile, content, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(usersFile, content, 0o600); err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("GET", "/api/v1/status", nil)
		req.Header.Set("Authorization", header)
		for _, o := range []Options{{BearerTokenFile: tokenFile}, {BasicAuthFile: usersFile}} {
			a, err := loadAuth(o)
			if err != nil {
				msg := err.Error()
				if !strings.Contains(msg, dir) {
					t.Fatalf("error %q does not name the file", msg)
				}
				if c := strings.TrimSpace(string(content)); len(c) >= 8 && strings.Contains(msg, c) {
					t.Fatalf("error %q shows the file's content", msg)
				}
				continue
			}
			a.ok(req)
			if a.kind == "basic" {
				for line := range strings.Lines(string(content)) {
					line = strings.TrimSpace(line)
					user, pass, ok := strings.Cut(line, ":")
					if !ok || line == "" || strings.HasPrefix(line, "#") || a.users[user] == [32]byte{} {
						continue
					}
					if strings.Count(string(content), user+":") > 1 {
						continue // a user listed twice keeps the last password
					}
					r := httptest.NewRequest("GET", "/", nil)
					r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":"+pass)))
					if !a.ok(r) {
						t.Fatalf("user %q refused with its own password", user)
					}
					r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":"+pass+"x")))
					if a.ok(r) {
						t.Fatalf("user %q accepted with another password", user)
					}
				}
			}
		}
	})
}
