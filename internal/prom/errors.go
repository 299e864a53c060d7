package prom

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Kind classifies a failed request so callers can pick an exit code.
type Kind int

// Kinds of failure.
const (
	// Bad: Prometheus rejected the query or answered something that is not
	// a Prometheus API response.
	Bad Kind = iota
	// Unreachable: connection refused, DNS, TLS, timeout, or a 5xx.
	Unreachable
	// Denied: 401 or 403.
	Denied
)

func (k Kind) String() string {
	switch k {
	case Unreachable:
		return "unreachable"
	case Denied:
		return "denied"
	}
	return "bad response"
}

// Error is a failed API request, naming the endpoint and the query.
type Error struct {
	Kind   Kind
	URL    string
	Query  string
	Status int // HTTP status; 0 when no answer came
	Hint   string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "prometheus %s", e.URL)
	if e.Query != "" {
		fmt.Fprintf(&b, " query %q", e.Query)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of the first *Error in err's chain, and false
// when there is none.
func KindOf(err error) (Kind, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind, true
	}
	return Bad, false
}

// apiError is a {"status":"error"} body met while decoding.
type apiError struct {
	kind Kind
	msg  string
}

func (e *apiError) Error() string { return e.msg }

// retryable reports whether a failure may pass on a second try.
func retryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == Unreachable
}

// statusError reads a non-200 answer's body and classifies it.
func statusError(resp *http.Response, endpoint, query string) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	msg := strings.TrimSpace(string(body))
	var api struct {
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
	}
	if json.Unmarshal(body, &api) == nil && api.Error != "" {
		msg = api.ErrorType + ": " + api.Error
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	e := &Error{URL: endpoint, Query: query, Status: resp.StatusCode, Err: errors.New(msg)}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Kind = Denied
		e.Hint = deniedHint(msg)
	case code >= 500 || code == http.StatusTooManyRequests:
		e.Kind = Unreachable
	default:
		e.Kind = Bad
	}
	return e
}

func deniedHint(msg string) string {
	if strings.Contains(strings.ToLower(msg), "org id") {
		return "a multi-tenant Prometheus (Mimir, Cortex, Thanos receive) needs the tenant: --prometheus-header X-Scope-OrgID=TENANT"
	}
	return "check --prometheus-bearer-token-file or --prometheus-user/--prometheus-password-file"
}
