package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"
)

// newRequestFunc builds the request for an endpoint, afresh for every
// attempt and every redirect (same method, same body).
type newRequestFunc func(ctx context.Context, endpoint *url.URL) (*http.Request, error)

// do sends a request and hands a 200 answer to read. It retries transient
// failures (see Config.Retries) while the retry budget and the circuit
// breaker allow, and classifies the rest.
func (c *Client) do(ctx context.Context, path, query string, newReq newRequestFunc, read ReadFunc) error {
	for attempt := 1; ; attempt++ {
		err := c.once(ctx, path, query, newReq, read)
		if err == nil || !retryable(err) {
			return err
		}
		wait, ok := c.retryWait(attempt, err)
		if !ok {
			return err
		}
		if c.sleep(ctx, wait) != nil {
			return err
		}
	}
}

// retryWait is how long to wait before retrying after attempt failed with
// err, or false when it is not retried: no retries left, the budget spent,
// the circuit open, or a Retry-After longer than MaxRetryAfter (said in
// err's hint).
func (c *Client) retryWait(attempt int, err error) (time.Duration, bool) {
	var e *Error
	errors.As(err, &e)
	if attempt > c.cfg.Retries || c.health.open() {
		return 0, false
	}
	if e.retryAfter > c.cfg.MaxRetryAfter {
		e.Hint = fmt.Sprintf("the server asked to retry after %s, longer than the %s gpuwise waits", e.retryAfter, c.cfg.MaxRetryAfter)
		return 0, false
	}
	if !c.health.takeRetry() {
		e.Hint = fmt.Sprintf("not retried: the %d retries allowed to all requests together are spent", c.cfg.RetryBudget)
		return 0, false
	}
	return max(c.backoff(attempt), e.retryAfter), true
}

// backoff is the wait before retry attempt: Backoff doubled per attempt
// with up to half again of jitter, never more than MaxBackoff.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.Backoff
	for i := 1; i < attempt && d < c.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.cfg.MaxBackoff)
	return min(d+time.Duration(rand.Int64N(int64(d)/2+1)), max(c.cfg.MaxBackoff, c.cfg.Backoff))
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

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 5

// once sends one attempt, following redirects, and reads its answer.
func (c *Client) once(ctx context.Context, path, query string, newReq newRequestFunc, read ReadFunc) error {
	endpoint := c.base.JoinPath(path)
	if err := c.health.openError(); err != nil {
		return &Error{Kind: Unreachable, URL: Display(endpoint), Query: query, Err: err}
	}
	select {
	case c.limiter <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.limiter }()
	for hop := 0; ; hop++ {
		resp, err := c.send(ctx, endpoint, query, newReq)
		if err != nil {
			return err
		}
		if !isRedirect(resp.StatusCode) {
			defer resp.Body.Close()
			return c.answer(resp, endpoint, query, read)
		}
		next, err := c.redirect(resp, endpoint, hop)
		resp.Body.Close()
		if err != nil {
			return &Error{Kind: Bad, URL: Display(endpoint), Query: query, Status: resp.StatusCode, Err: err}
		}
		endpoint = next
	}
}

// send makes one HTTP exchange; a failure to get an answer counts
// against the circuit breaker, an answer for it.
func (c *Client) send(ctx context.Context, endpoint *url.URL, query string, newReq newRequestFunc) (*http.Response, error) {
	req, err := newReq(ctx, endpoint)
	if err != nil {
		return nil, &Error{Kind: Bad, URL: Display(endpoint), Query: query, Err: err}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			c.health.failed(err)
		}
		return nil, &Error{Kind: Unreachable, URL: Display(endpoint), Query: query, Err: withoutURL(err)}
	}
	c.health.answered()
	return resp, nil
}

// withoutURL drops the *url.Error wrapper net/http puts around transport
// errors: it repeats the request URL, and the Error names it already.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// answer classifies a final answer and reads a 200 one.
func (c *Client) answer(resp *http.Response, endpoint *url.URL, query string, read ReadFunc) error {
	if resp.StatusCode != http.StatusOK {
		e := statusError(resp, Display(endpoint), query)
		e.Err = errors.New(c.scrub(e.Err.Error()))
		return e
	}
	body := &limitedBody{r: resp.Body, limit: c.cfg.MaxResponseBytes}
	err := read(resp.Header.Get("Content-Type"), body)
	if err == nil {
		return nil
	}
	e := &Error{Kind: kindOfReadError(err), URL: Display(endpoint), Query: query, Status: resp.StatusCode, Err: err}
	if body.read == 0 && e.Kind == Unreachable && body.eof {
		e.Kind, e.Err = Bad, fmt.Errorf("empty answer (HTTP 200 with no body): %w", err)
	}
	return e
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redirect returns where a redirect points, if gpuwise may follow it:
// the request is sent again there with the same method and body (a 301,
// 302 or 303 would otherwise turn a POST into a GET that drops the
// query), credentials only to the base URL's own origin. A redirect to
// another origin is refused when the requests carry credentials, and so
// are loops and chains of more than maxRedirects.
func (c *Client) redirect(resp *http.Response, from *url.URL, hop int) (*url.URL, error) {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, errors.New("redirect without a Location")
	}
	next, err := from.Parse(loc)
	if err != nil || (next.Scheme != "http" && next.Scheme != "https") {
		return nil, errors.New("redirect to an invalid URL")
	}
	switch {
	case hop >= maxRedirects:
		return nil, fmt.Errorf("more than %d redirects (a redirect loop?); point --prometheus at the final URL", maxRedirects)
	case !sameOrigin(next, c.base) && c.hasCredentials():
		return nil, fmt.Errorf("redirected to another origin (%s); gpuwise does not send credentials there: point --prometheus at it if you trust it", Display(next))
	case sameOrigin(next, c.base) && next.User == nil:
		next.User = c.base.User
	}
	return next, nil
}

// limitedBody counts what is read from an answer and fails past left
// bytes.
type limitedBody struct {
	r     io.Reader
	limit int64
	read  int64
	eof   bool
}

// TooLargeError says an answer went past Config.MaxResponseBytes.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("answer larger than %d bytes (raise the limit with --prometheus-max-response-bytes)", e.Limit)
}

func (b *limitedBody) Read(p []byte) (int, error) {
	left := b.limit - b.read
	if left <= 0 {
		return 0, &TooLargeError{Limit: b.limit}
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// kindOfReadError tells a body cut off by a timeout or a dropped
// connection (worth retrying) from a malformed or oversized answer.
func kindOfReadError(err error) Kind {
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, new(*TooLargeError)):
		return Bad
	case errors.As(err, &ne), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, context.DeadlineExceeded):
		return Unreachable
	}
	return Bad
}
