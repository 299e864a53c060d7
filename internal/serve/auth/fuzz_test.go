package auth

import (
	"encoding/base64"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
		for _, files := range [][2]string{{tokenFile, ""}, {"", usersFile}} {
			a, err := Load(files[0], files[1])
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
			a.OK(req)
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
					if !a.OK(r) {
						t.Fatalf("user %q refused with its own password", user)
					}
					r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":"+pass+"x")))
					if a.OK(r) {
						t.Fatalf("user %q accepted with another password", user)
					}
				}
			}
		}
	})
}
