package serve

import (
	"context"
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
	file := func(path string) {
		if path == "" {
			return
		}
		if b, err := os.ReadFile(path); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if _, pass, ok := strings.Cut(line, ":"); ok && path == o.BasicAuthFile {
					line = pass
				}
				add(line)
			}
		}
	}
	file(o.BearerTokenFile)
	file(o.BasicAuthFile)
	if o.Prometheus != nil {
		p := &o.Prometheus.Client
		add(p.Password)
		file(p.PasswordFile)
		file(p.BearerTokenFile)
		if u, err := url.Parse(p.URL); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok {
				add(pw)
				add(url.QueryEscape(pw))
			}
		}
		for _, v := range p.Headers {
			add(v)
		}
	}
	return s
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
