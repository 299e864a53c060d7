// Package auth checks the credentials gpuwise serve requires: a bearer
// token file or a basic-auth file of user:password lines. It imports the
// standard library only, so that its fuzz target (FuzzAuthFiles) links a
// small binary: a fuzz binary instruments every package it links.
package auth

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

// Authenticator checks a request's credentials: a bearer token, or one of
// the basic-auth users. Secrets are compared in constant time, as SHA-256
// digests, and never logged, echoed or put in an error.
type Authenticator struct {
	token [32]byte
	users map[string][32]byte
	kind  string // "bearer" or "basic"
}

// Load reads the credentials file named (a bearer token file, else a
// basic-auth file); nil when neither is. Errors name the file and the
// problem, never its content.
func Load(bearerTokenFile, basicAuthFile string) (*Authenticator, error) {
	switch {
	case bearerTokenFile != "":
		b, err := os.ReadFile(bearerTokenFile)
		if err != nil {
			return nil, fmt.Errorf("reading --auth-token-file %s: %w", bearerTokenFile, errors.Unwrap(err))
		}
		tok := bytes.TrimSpace(b)
		if len(tok) < 16 {
			return nil, fmt.Errorf("--auth-token-file %s: the token is shorter than 16 characters", bearerTokenFile)
		}
		return &Authenticator{token: sha256.Sum256(tok), kind: "bearer"}, nil
	case basicAuthFile != "":
		return loadUsers(basicAuthFile)
	}
	return nil, nil
}

func loadUsers(path string) (*Authenticator, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading --auth-basic-file %s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	a := &Authenticator{users: map[string][32]byte{}, kind: "basic"}
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

// OK reports whether r carries valid credentials.
func (a *Authenticator) OK(r *http.Request) bool {
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

// Guard lets requests with valid credentials through and answers 401 to
// the rest, with the service's JSON error body.
func (a *Authenticator) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.OK(r) {
			next.ServeHTTP(w, r)
			return
		}
		if a.kind == "bearer" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gpuwise"`)
		} else {
			w.Header().Set("WWW-Authenticate", `Basic realm="gpuwise", charset="UTF-8"`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"credentials missing or wrong","kind":"unauthorized"}` + "\n"))
	})
}
