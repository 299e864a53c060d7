package api

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Client calls the Prometheus HTTP API. It is safe for concurrent use;
// its retry budget and circuit breaker are shared by all requests.
type Client struct {
	base     *url.URL
	http     *http.Client
	cfg      Config
	token    string
	password string
	limiter  chan struct{}
	health   *health
	// sleep waits between attempts (a test shortens it).
	sleep func(ctx context.Context, d time.Duration) error
}

// New checks cfg (see Config.Validate), reads the files it names and
// builds a client. It makes no request.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u, _ := url.Parse(strings.TrimRight(cfg.URL, "/"))
	c := &Client{base: u, cfg: cfg, password: cfg.Password, limiter: make(chan struct{}, cfg.Concurrency),
		health: newHealth(cfg), sleep: sleep}
	var err error
	if c.token, err = readSecret(cfg.BearerTokenFile, "bearer token"); err != nil {
		return nil, err
	}
	if cfg.PasswordFile != "" {
		if c.password, err = readSecret(cfg.PasswordFile, "password"); err != nil {
			return nil, err
		}
	}
	tr, err := transport(cfg, u.Hostname())
	if err != nil {
		return nil, err
	}
	c.http = &http.Client{Transport: tr, Timeout: cfg.Timeout,
		// Redirects are followed by once, which keeps the method and
		// body and refuses to take credentials to another origin.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return c, nil
}

// FileError is a file named in the Config that cannot be read: an input
// error, not a failed request.
type FileError struct{ Err error }

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

func readSecret(path, what string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", &FileError{fmt.Errorf("reading prometheus %s: %w", what, err)}
	}
	return strings.TrimSpace(string(b)), nil
}

func transport(cfg Config, host string) (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Concurrency
	// Remote-read answers are tens of MB written one small frame per
	// series: a large buffer reads them in far fewer system calls than
	// the default 4 KiB.
	tr.ReadBufferSize = 256 << 10
	tr.DisableCompression = cfg.Gzip == GzipOff || (cfg.Gzip != GzipOn && isLoopback(host))
	if cfg.CAFile == "" && !cfg.Insecure {
		return tr, nil
	}
	tc := &tls.Config{InsecureSkipVerify: cfg.Insecure} //nolint:gosec // the user asked for it
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, &FileError{fmt.Errorf("reading prometheus CA file: %w", err)}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &FileError{fmt.Errorf("prometheus CA file %s: no PEM certificate found", cfg.CAFile)}
		}
		tc.RootCAs = pool
	}
	tr.TLSClientConfig = tc
	return tr, nil
}

// URL is the base URL the client talks to, as Display shows it.
func (c *Client) URL() string { return Display(c.base) }

// Concurrency is how many requests the client runs at once.
func (c *Client) Concurrency() int { return c.cfg.Concurrency }

// ReadFunc reads the body of a 200 answer, given its content type.
type ReadFunc func(contentType string, body io.Reader) error

// PostForm POSTs form to an API path (e.g. /api/v1/query_range) and hands
// the body of a 200 answer to read. query names the request in errors.
func (c *Client) PostForm(ctx context.Context, path string, form url.Values, query string, read ReadFunc) error {
	body := form.Encode()
	return c.do(ctx, path, query, func(ctx context.Context, endpoint *url.URL) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), strings.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept", "application/json")
			c.authorize(req, endpoint)
		}
		return req, err
	}, read)
}

// PostRemoteRead POSTs a snappy-compressed protobuf remote-read request
// to /api/v1/read, accepting accept, and hands the body of a 200 answer to
// read.
func (c *Client) PostRemoteRead(ctx context.Context, body []byte, accept, version, query string, read ReadFunc) error {
	return c.do(ctx, "/api/v1/read", query, func(ctx context.Context, endpoint *url.URL) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-protobuf")
			req.Header.Set("Content-Encoding", "snappy")
			req.Header.Set("Accept", accept)
			req.Header.Set("X-Prometheus-Remote-Read-Version", version)
			c.authorize(req, endpoint)
		}
		return req, err
	}, read)
}

// authorize adds the extra headers and the credentials, the latter only
// for the base URL's origin.
func (c *Client) authorize(req *http.Request, endpoint *url.URL) {
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	if !sameOrigin(endpoint, c.base) {
		return
	}
	switch {
	case c.token != "":
		req.Header.Set("Authorization", "Bearer "+c.token)
	case c.cfg.Username != "":
		req.SetBasicAuth(c.cfg.Username, c.password)
	}
}

// hasCredentials reports whether requests carry a secret: a token, basic
// auth (configured or in the URL) or an authorization or cookie header.
func (c *Client) hasCredentials() bool {
	if c.token != "" || c.cfg.Username != "" || c.base.User != nil {
		return true
	}
	for k := range c.cfg.Headers {
		switch http.CanonicalHeaderKey(k) {
		case "Authorization", "Proxy-Authorization", "Cookie":
			return true
		}
	}
	return false
}

// scrub replaces the client's secrets (token, password, header values) in
// a message from the server, which may echo what it was sent.
func (c *Client) scrub(msg string) string {
	secrets := []string{c.token, c.password}
	if c.cfg.Username != "" {
		// A server that echoes the Authorization header shows the pair in
		// base64 (issue 31 M2).
		secrets = append(secrets, BasicForms(c.cfg.Username, c.password)...)
	}
	if p, ok := c.base.User.Password(); ok {
		secrets = append(secrets, p)
		secrets = append(secrets, BasicForms(c.base.User.Username(), p)...)
	}
	for _, v := range c.cfg.Headers {
		secrets = append(secrets, v)
	}
	for _, s := range secrets {
		if len(s) >= 4 {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return msg
}

// sameOrigin compares scheme, host and port (the port a scheme implies
// included).
func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// BasicForms are the forms in which a basic-auth pair travels and may be
// echoed back: the Authorization header's base64 of "user:password",
// padded and unpadded, and its URL-safe variant. The padded form comes
// first, so that replacing them in order leaves no "==" behind.
func BasicForms(user, password string) []string {
	pair := []byte(user + ":" + password)
	return []string{base64.StdEncoding.EncodeToString(pair), base64.RawStdEncoding.EncodeToString(pair),
		base64.RawURLEncoding.EncodeToString(pair)}
}
