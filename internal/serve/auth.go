package serve

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// authenticator checks a request's credentials: a bearer token, or one of
// the basic-auth users. Secrets are compared in constant time, as SHA-256
// digests, and never logged, echoed or put in an error.
type authenticator struct {
	token [32]byte
	users map[string][32]byte
	kind  string // "bearer" or "basic"
}

// loadAuth reads the credentials files named in o; nil when auth is off.
// Errors name the file and the problem, never its content.
func loadAuth(o Options) (*authenticator, error) {
	switch {
	case o.BearerTokenFile != "":
		b, err := os.ReadFile(o.BearerTokenFile)
		if err != nil {
			return nil, fmt.Errorf("reading --auth-token-file %s: %w", o.BearerTokenFile, errors.Unwrap(err))
		}
		tok := bytes.TrimSpace(b)
		if len(tok) < 16 {
			return nil, fmt.Errorf("--auth-token-file %s: the token is shorter than 16 characters", o.BearerTokenFile)
		}
		return &authenticator{token: sha256.Sum256(tok), kind: "bearer"}, nil
	case o.BasicAuthFile != "":
		return loadUsers(o.BasicAuthFile)
	}
	return nil, nil
}

func loadUsers(path string) (*authenticator, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading --auth-basic-file %s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	a := &authenticator{users: map[string][32]byte{}, kind: "basic"}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, pass, ok := strings.Cut(line, ":")
		if !ok || user == "" || len(pass) < 8 {
			return nil, fmt.Errorf("--auth-basic-file %s line %d: want user:password with a password of at least 8 characters", path, n)
		}
		a.users[user] = sha256.Sum256([]byte(pass))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading --auth-basic-file %s: %w", path, err)
	}
	if len(a.users) == 0 {
		return nil, fmt.Errorf("--auth-basic-file %s: no user:password line", path)
	}
	return a, nil
}

// ok reports whether r carries valid credentials.
func (a *authenticator) ok(r *http.Request) bool {
	if a.kind == "bearer" {
		tok, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(tok))
		return found && subtle.ConstantTimeCompare(sum[:], a.token[:]) == 1
	}
	user, pass, found := r.BasicAuth()
	want, known := a.users[user]
	sum := sha256.Sum256([]byte(pass))
	return found && known && subtle.ConstantTimeCompare(sum[:], want[:]) == 1
}

// guard lets requests with valid credentials through and answers 401 to
// the rest.
func (a *authenticator) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.ok(r) {
			next.ServeHTTP(w, r)
			return
		}
		if a.kind == "bearer" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gpuwise"`)
		} else {
			w.Header().Set("WWW-Authenticate", `Basic realm="gpuwise", charset="UTF-8"`)
		}
		writeError(w, http.StatusUnauthorized, "unauthorized", errors.New("credentials missing or wrong"))
	})
}
