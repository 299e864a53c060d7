package api

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Config says how to reach Prometheus. DefaultConfig holds the defaults;
// Validate lists every problem, each named as the CLI spells the option
// (the flag without its dashes; fields the CLI does not set by their Go
// name).
type Config struct {
	URL string
	// BearerTokenFile is read once; its content is sent as a bearer token.
	BearerTokenFile string
	// Username, with Password or the content of PasswordFile, is sent as
	// HTTP basic auth.
	Username, Password, PasswordFile string
	// CAFile adds a PEM CA bundle; Insecure skips TLS verification.
	CAFile   string
	Insecure bool
	// Headers are sent with every request (e.g. X-Scope-OrgID for Mimir).
	Headers map[string]string
	// Timeout bounds one HTTP request.
	Timeout time.Duration
	// ProbeTimeout bounds the first request of a read, all its attempts
	// together (see Client.Probe): a server that accepts connections and
	// never answers fails the read in this time, not in Timeout × the
	// attempts.
	ProbeTimeout time.Duration
	// Retries is how many times a request that timed out, lost its
	// connection or got a 5xx or 429 is retried, with exponential backoff
	// from Backoff (and jitter), or after the Retry-After the server asked
	// for when that is longer, up to MaxRetryAfter (a longer one is not
	// waited for). RetryBudget bounds the retries of all requests
	// together.
	// The backoff doubles from Backoff up to MaxBackoff; Retries is at
	// most MaxRetries.
	Retries       int
	RetryBudget   int
	Backoff       time.Duration
	MaxBackoff    time.Duration
	MaxRetryAfter time.Duration
	// BreakerFailures consecutive failures to connect (refused, reset,
	// timed out) open the circuit: every later request fails at once,
	// without being sent, so that a dead server ends a read in seconds.
	BreakerFailures int
	// Concurrency is how many requests run at once.
	Concurrency int
	// Gzip asks for compressed answers: "on", "off", or "auto", which is
	// on except for a loopback host, where gzip only costs Prometheus CPU
	// (3.5x the time of an uncompressed answer).
	Gzip string
	// MaxResponseBytes bounds one answer, counted after decompression.
	MaxResponseBytes int64
}

// DefaultConfig is the configuration gpuwise uses unless told otherwise.
func DefaultConfig() Config {
	return Config{
		Timeout:          2 * time.Minute,
		ProbeTimeout:     15 * time.Second,
		Retries:          3,
		RetryBudget:      30,
		Backoff:          500 * time.Millisecond,
		MaxBackoff:       10 * time.Second,
		MaxRetryAfter:    time.Minute,
		BreakerFailures:  5,
		Concurrency:      4,
		Gzip:             GzipAuto,
		MaxResponseBytes: 1 << 30,
	}
}

// MaxRetries is the most retries one request may have.
const MaxRetries = 10

// Values of Config.Gzip.
const (
	GzipAuto = "auto"
	GzipOn   = "on"
	GzipOff  = "off"
)

// ConfigError lists every problem of a Config.
type ConfigError []string

func (e ConfigError) Error() string { return strings.Join(e, "; ") }

// Validate returns every problem of c as a ConfigError, or nil.
func (c Config) Validate() error {
	var probs ConfigError
	add := func(ok bool, format string, args ...any) {
		if !ok {
			probs = append(probs, fmt.Sprintf(format, args...))
		}
	}
	if msg := urlProblem(c.URL); msg != "" {
		probs = append(probs, "prometheus: "+msg)
	}
	probs = append(probs, headerProblems(c.Headers)...)
	add(c.BearerTokenFile == "" || c.Username == "", "prometheus-bearer-token-file and prometheus-user: use one of bearer token and basic auth, not both")
	add(c.Password == "" || c.PasswordFile == "", "prometheus-password-file: a password is given twice")
	add(c.Timeout > 0, "prometheus-timeout: %s is not positive", c.Timeout)
	add(c.ProbeTimeout > 0, "prometheus-probe-timeout: %s is not positive", c.ProbeTimeout)
	add(c.Retries >= 0, "prometheus-retries: %d is negative", c.Retries)
	add(c.Retries <= MaxRetries, "prometheus-retries: %d is more than %d (each retry waits up to %s; a server that fails %d times in a row will not answer the next)", c.Retries, MaxRetries, c.MaxBackoff, MaxRetries)
	add(c.MaxBackoff >= c.Backoff, "MaxBackoff: %s is below Backoff %s", c.MaxBackoff, c.Backoff)
	add(c.RetryBudget >= 0, "RetryBudget: %d is negative", c.RetryBudget)
	add(c.Backoff > 0, "Backoff: %s is not positive", c.Backoff)
	add(c.MaxRetryAfter >= 0, "MaxRetryAfter: %s is negative", c.MaxRetryAfter)
	add(c.BreakerFailures >= 1, "BreakerFailures: %d is below 1", c.BreakerFailures)
	add(c.Concurrency >= 1 && c.Concurrency <= 256, "prometheus-concurrency: %d is not between 1 and 256", c.Concurrency)
	add(c.Gzip == GzipAuto || c.Gzip == GzipOn || c.Gzip == GzipOff, "prometheus-gzip: %q is not auto, on or off", c.Gzip)
	add(c.MaxResponseBytes >= 1<<20, "prometheus-max-response-bytes: %d is below 1 MiB", c.MaxResponseBytes)
	if len(probs) > 0 {
		return probs
	}
	return nil
}

// urlProblem says what is wrong with a base URL, never echoing a secret
// it may hold (userinfo, query string).
func urlProblem(raw string) string {
	const want = "want http(s)://host[:port][/path]"
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "no URL given"
	case err != nil && strings.ContainsAny(raw, "@?#"):
		return "not a valid URL; " + want
	case err != nil:
		return fmt.Sprintf("not a valid URL (%v); %s", errorsUnwrap(err), want)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Opaque != "":
		return fmt.Sprintf("%s is not an http(s) URL with a host; %s", Display(u), want)
	case u.RawQuery != "" || u.ForceQuery:
		return fmt.Sprintf("%s has a query string (not shown); gpuwise appends /api/v1/… to the path, so leave the query out and pass credentials with --prometheus-bearer-token-file or --prometheus-user/--prometheus-password-file", Display(u))
	case u.Fragment != "":
		return fmt.Sprintf("%s has a #fragment; leave it out", Display(u))
	}
	return ""
}

func errorsUnwrap(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// headerProblems checks extra headers: names must be HTTP tokens, values
// free of CR, LF and other control characters (which would split or end
// the request). Values are never echoed.
func headerProblems(h map[string]string) []string {
	var probs []string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		v := h[k]
		if !isToken(k) {
			probs = append(probs, fmt.Sprintf("prometheus-header: %q is not a valid header name", k))
		}
		if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			probs = append(probs, fmt.Sprintf("prometheus-header: the value of %s holds a control character (CR, LF, …); it would corrupt the request", k))
		}
	}
	return probs
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// Display is u as gpuwise shows it anywhere (errors, reports): userinfo
// redacted, query string and fragment left out, so that no secret a URL
// may carry is printed. A username with a password stays (url.Redacted);
// a username alone, which may be a token, does not.
func Display(u *url.URL) string {
	v := *u
	v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = "", false, "", ""
	if v.User != nil {
		if _, ok := v.User.Password(); !ok {
			v.User = url.User("xxxxx")
		}
	}
	return v.Redacted()
}
