package serve

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/url"
	"os"
	"strings"
)

// scrubber removes the secrets the service knows (its own credentials,
// the Prometheus password and bearer token, a password in the Prometheus
// URL) from any text it logs or answers with, whatever an adapter's error
// says: defence in depth behind each adapter's own redaction.
type scrubber struct{ secrets []string }

const redacted = "xxxxx"

func newScrubber(o Options) *scrubber {
	s := &scrubber{}
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= 4 {
			s.secrets = append(s.secrets, v)
		}
	}
	// basic adds the base64 forms of a basic-auth pair, in which an
	// echoed Authorization header shows it (issue 31 M2).
	basic := func(user, pass string) {
		if pass = strings.TrimSpace(pass); len(pass) >= 4 {
			s.secrets = append(s.secrets, basicForms(user, pass)...)
		}
	}
	read := func(path string) string {
		if path == "" {
			return ""
		}
		b, _ := os.ReadFile(path)
		return string(b)
	}
	file := func(path string) {
		for _, line := range strings.Split(read(path), "\n") {
			if user, pass, ok := strings.Cut(line, ":"); ok && path == o.BasicAuthFile {
				basic(strings.TrimSpace(user), pass)
				line = pass
			}
			add(line)
		}
	}
	file(o.BearerTokenFile)
	file(o.BasicAuthFile)
	if o.Prometheus != nil {
		p := &o.Prometheus.Client
		add(p.Password)
		file(p.PasswordFile)
		file(p.BearerTokenFile)
		if p.Username != "" {
			pass := p.Password
			if p.PasswordFile != "" {
				pass = read(p.PasswordFile)
			}
			basic(p.Username, pass)
		}
		if u, err := url.Parse(p.URL); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok {
				add(pw)
				add(url.QueryEscape(pw))
				basic(u.User.Username(), pw)
			}
		}
		for _, v := range p.Headers {
			add(v)
		}
	}
	return s
}

// basicForms are the base64 forms of "user:password" as an Authorization
// header carries it: padded, unpadded and URL-safe, padded first so that
// replacing in order leaves no "==" behind.
func basicForms(user, pass string) []string {
	pair := []byte(user + ":" + pass)
	return []string{base64.StdEncoding.EncodeToString(pair), base64.RawStdEncoding.EncodeToString(pair),
		base64.RawURLEncoding.EncodeToString(pair)}
}

// text is t with every known secret replaced.
func (s *scrubber) text(t string) string {
	for _, sec := range s.secrets {
		t = strings.ReplaceAll(t, sec, redacted)
	}
	return t
}

// scrubHandler is a slog handler that scrubs every string attribute and
// the message.
type scrubHandler struct {
	next slog.Handler
	s    *scrubber
}

func (h scrubHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.s.text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h scrubHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.s.text(v.String()))
	case slog.KindGroup:
		attrs := v.Group()
		out := make([]any, len(attrs))
		for i, g := range attrs {
			out[i] = h.attr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.s.text(err.Error()))
		}
	}
	return a
}

func (h scrubHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = h.attr(a)
	}
	return scrubHandler{h.next.WithAttrs(out), h.s}
}

func (h scrubHandler) WithGroup(name string) slog.Handler {
	return scrubHandler{h.next.WithGroup(name), h.s}
}
