package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Kind classifies a failed request so callers can pick an exit code.
type Kind int

// Kinds of failure.
const (
	// Bad: Prometheus rejected the query, answered something that is not
	// a Prometheus API answer, an answer past a limit, or a redirect
	// gpuwise does not follow.
	Bad Kind = iota
	// Unreachable: connection refused, DNS, TLS, timeout, or a 5xx or 429.
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

// Error is a failed API request, naming the endpoint (as Display shows
// it) and the query.
type Error struct {
	Kind   Kind
	URL    string
	Query  string
	Status int // HTTP status; 0 when no answer came
	Hint   string
	Err    error
	// retryAfter is the wait a 429 or 503 asked for.
	retryAfter time.Duration
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

// retryable reports whether a failure may pass on a second try.
func retryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == Unreachable
}

// maxMessage bounds the part of an error answer's body that an error
// quotes: one line, as a terminal shows it.
const maxMessage = 200

// statusError reads a non-200 answer's body and classifies it. The body
// is quoted only when it is Prometheus' JSON error or one line of plain
// text, capped: an HTML error page (a proxy's 502 or 503) is not copied.
func statusError(resp *http.Response, endpoint, query string) *Error {
	e := &Error{URL: endpoint, Query: query, Status: resp.StatusCode,
		Err: errors.New(answerMessage(resp)), retryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Kind = Denied
		e.Hint = deniedHint(e.Err.Error())
	case code >= 500 || code == http.StatusTooManyRequests:
		e.Kind = Unreachable
	default:
		e.Kind = Bad
	}
	return e
}

func answerMessage(resp *http.Response) string {
	body := make([]byte, 4096)
	n, _ := io.ReadFull(resp.Body, body)
	body = body[:n]
	var api struct {
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
	}
	switch {
	case json.Unmarshal(body, &api) == nil && api.Error != "":
		return oneLine(api.ErrorType + ": " + api.Error)
	case isHTML(resp.Header.Get("Content-Type"), body):
		return http.StatusText(resp.StatusCode) + " (an HTML page, not shown)"
	}
	if msg := oneLine(string(body)); msg != "" {
		return msg
	}
	return http.StatusText(resp.StatusCode)
}

func isHTML(contentType string, body []byte) bool {
	s := strings.TrimSpace(strings.ToLower(string(body[:min(len(body), 64)])))
	return strings.Contains(contentType, "html") || strings.HasPrefix(s, "<")
}

// oneLine is the first line of s without control characters, capped.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	if r := []rune(s); len(r) > maxMessage {
		s = string(r[:maxMessage]) + "…"
	}
	return s
}

// retryAfter reads a Retry-After header: seconds or an HTTP date (its
// distance from now); 0 when absent or unreadable.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

func deniedHint(msg string) string {
	if strings.Contains(strings.ToLower(msg), "org id") {
		return "a multi-tenant Prometheus (Mimir, Cortex, Thanos receive) needs the tenant: --prometheus-header X-Scope-OrgID=TENANT"
	}
	return "check --prometheus-bearer-token-file or --prometheus-user/--prometheus-password-file"
}
