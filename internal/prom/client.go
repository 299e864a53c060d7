package prom

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Config says how to reach Prometheus. Only URL is required.
type Config struct {
	URL string
	// BearerTokenFile is read once; its content is sent as a bearer token.
	BearerTokenFile string
	// Username and Password are sent as HTTP basic auth when Username is set.
	Username, Password string
	// CAFile adds a PEM CA bundle; Insecure skips TLS verification.
	CAFile   string
	Insecure bool
	// Headers are sent with every request (e.g. X-Scope-OrgID for Mimir).
	Headers map[string]string
	// Timeout bounds one HTTP request; Retries is how many times a request
	// that failed with a timeout, a connection error or a 5xx is retried,
	// with exponential backoff from Backoff.
	Timeout time.Duration
	Retries int
	Backoff time.Duration
	// Concurrency is how many requests run at once.
	Concurrency int
	// Gzip asks for compressed answers: "on", "off", or "auto" (the
	// default), which is on except for a loopback host, where gzip only
	// costs Prometheus CPU (3.5x the time of an uncompressed answer).
	Gzip string
}

// Client calls the Prometheus HTTP API.
type Client struct {
	base    *url.URL
	http    *http.Client
	token   string
	cfg     Config
	limiter chan struct{}
}

// New checks cfg and builds a client. It makes no request.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(cfg.URL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("prometheus url %q: want http(s)://host[:port][/path]", cfg.URL)
	}
	if g := cfg.Gzip; g != "" && g != "auto" && g != "on" && g != "off" {
		return nil, fmt.Errorf("prometheus gzip %q: want auto, on or off", g)
	}
	cfg = withDefaults(cfg)
	c := &Client{base: u, cfg: cfg, limiter: make(chan struct{}, cfg.Concurrency)}
	if cfg.BearerTokenFile != "" {
		b, err := os.ReadFile(cfg.BearerTokenFile)
		if err != nil {
			return nil, fmt.Errorf("reading bearer token: %w", err)
		}
		c.token = strings.TrimSpace(string(b))
	}
	tr, err := transport(cfg, u.Hostname())
	if err != nil {
		return nil, err
	}
	c.http = &http.Client{Transport: tr, Timeout: cfg.Timeout}
	return c, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 4
	}
	return cfg
}

func transport(cfg Config, host string) (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Concurrency
	// Remote-read answers are tens of MB written one small frame per
	// series: a large buffer reads them in far fewer system calls than
	// the default 4 KiB.
	tr.ReadBufferSize = 256 << 10
	tr.DisableCompression = cfg.Gzip == "off" || (cfg.Gzip != "on" && isLoopback(host))
	if cfg.CAFile == "" && !cfg.Insecure {
		return tr, nil
	}
	tc := &tls.Config{InsecureSkipVerify: cfg.Insecure} //nolint:gosec // the user asked for it
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading prometheus CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("prometheus CA file %s: no PEM certificate found", cfg.CAFile)
		}
		tc.RootCAs = pool
	}
	tr.TLSClientConfig = tc
	return tr, nil
}

// URL is the base URL the client talks to.
func (c *Client) URL() string { return c.base.String() }

// get calls an API path with form values and hands the body of a 200
// answer to read. It retries transient failures and classifies the rest.
func (c *Client) get(ctx context.Context, path string, form url.Values, query string, read func(io.Reader) error) error {
	return c.do(ctx, path, query, func(ctx context.Context, endpoint string) (*http.Request, error) {
		req, err := newRequest(ctx, endpoint, strings.NewReader(form.Encode()))
		if err == nil {
			c.authorize(req)
		}
		return req, err
	}, func(_ string, r io.Reader) error { return read(r) })
}

func newRequest(ctx context.Context, endpoint string, body io.Reader) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodPost, endpoint, body)
}

// do sends the request newReq builds (afresh for every attempt) and hands
// the content type and body of a 200 answer to read. It retries transient
// failures and classifies the rest.
func (c *Client) do(ctx context.Context, path, query string, newReq func(context.Context, string) (*http.Request, error), read func(string, io.Reader) error) error {
	var last error
	for attempt := 0; attempt <= c.cfg.Retries; attempt++ {
		if attempt > 0 {
			if err := sleep(ctx, c.backoff(attempt)); err != nil {
				return last
			}
		}
		err := c.once(ctx, path, query, newReq, read)
		if err == nil || !retryable(err) {
			return err
		}
		last = err
	}
	return last
}

func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.Backoff << (attempt - 1)
	return d + time.Duration(rand.Int64N(int64(d)/2+1))
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *Client) once(ctx context.Context, path, query string, newReq func(context.Context, string) (*http.Request, error), read func(string, io.Reader) error) error {
	select {
	case c.limiter <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.limiter }()
	endpoint := c.base.String() + path
	req, err := newReq(ctx, endpoint)
	if err != nil {
		return &Error{Kind: Unreachable, URL: endpoint, Query: query, Err: err}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &Error{Kind: Unreachable, URL: endpoint, Query: query, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return statusError(resp, endpoint, query)
	}
	if err := read(resp.Header.Get("Content-Type"), resp.Body); err != nil {
		return &Error{Kind: kindOfReadError(err), URL: endpoint, Query: query, Err: err}
	}
	return nil
}

func (c *Client) authorize(req *http.Request) {
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	switch {
	case c.token != "":
		req.Header.Set("Authorization", "Bearer "+c.token)
	case c.cfg.Username != "":
		req.SetBasicAuth(c.cfg.Username, c.cfg.Password)
	}
}

// kindOfReadError tells a body cut off by a timeout or a dropped
// connection (worth retrying) from a malformed answer.
func kindOfReadError(err error) Kind {
	var apiErr *apiError
	var ne net.Error
	switch {
	case errors.As(err, &apiErr):
		return apiErr.kind
	case errors.As(err, &ne), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, context.DeadlineExceeded):
		return Unreachable
	}
	return Bad
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
