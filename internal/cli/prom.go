package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
)

// promFlags are the flags of reading history from Prometheus.
type promFlags struct {
	src     app.PromSource
	headers []string
	end     string
}

func (f *promFlags) register(fs *pflag.FlagSet) {
	def := app.DefaultPromSource()
	s := &f.src
	fs.StringVar(&s.URL, "prometheus", "", "read the whole snapshot from this Prometheus (or Thanos, Mimir, VictoriaMetrics) URL")
	fs.StringVar(&s.BearerTokenFile, "prometheus-bearer-token-file", "", "file holding a bearer token for Prometheus")
	fs.StringVar(&s.User, "prometheus-user", "", "basic-auth user for Prometheus")
	fs.StringVar(&s.PasswordFile, "prometheus-password-file", "", "file holding the basic-auth password")
	fs.StringVar(&s.CAFile, "prometheus-ca-file", "", "PEM CA bundle that signs Prometheus' certificate")
	fs.BoolVar(&s.Insecure, "prometheus-insecure-skip-verify", false, "do not verify Prometheus' TLS certificate")
	fs.StringArrayVar(&f.headers, "prometheus-header", nil, "extra header KEY=VALUE on every request, e.g. X-Scope-OrgID=team-a (repeatable)")
	fs.DurationVar(&s.Timeout, "prometheus-timeout", def.Timeout, "timeout of one Prometheus request")
	fs.IntVar(&s.Retries, "prometheus-retries", def.Retries, "retries of a request that timed out or got a 5xx, with exponential backoff")
	fs.IntVar(&s.Concurrency, "prometheus-concurrency", def.Concurrency, "Prometheus requests in flight at once")
	fs.DurationVar(&s.Step, "step", def.Step, "resolution of usage series from Prometheus; at least the scrape interval")
	fs.StringVar(&f.end, "end", "", "window end for --prometheus, RFC 3339 (default: now, rounded down to --step)")
	fs.IntVar(&s.ShardSize, "prometheus-shard-size", def.ShardSize, "nodes per usage query")
	fs.StringVar(&s.Read, "prometheus-read", def.Read, "how usage series are read: remote (raw samples by remote read, /api/v1/read with streamed XOR chunks), raw (raw samples by instant queries of range vectors; no per-step evaluation in Prometheus), range (query_range at --step), or auto: raw samples where they come about once a --step (by remote read when the server supports it), range where they are denser")
	fs.StringVar(&s.Gzip, "prometheus-gzip", def.Gzip, "ask for gzip answers: auto (on unless Prometheus is on a loopback address), on, off")
}

// source is the Prometheus source the flags describe (nil without
// --prometheus); problems are the flag values that do not parse.
func (f *promFlags) source(p *flagProblems) *app.PromSource {
	if f.src.URL == "" {
		return nil
	}
	s := f.src
	s.Headers = map[string]string{}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			p.addf("prometheus-header: %q is not KEY=VALUE", h)
			continue
		}
		s.Headers[strings.TrimSpace(k)] = v
	}
	if f.end != "" {
		t, err := time.Parse(time.RFC3339, f.end)
		if err != nil {
			p.addf("end: %q is not an RFC 3339 time (e.g. 2026-11-15T00:00:00Z)", f.end)
		}
		s.End = t
	}
	return &s
}

// flagProblems are flag values that do not parse; they are reported with
// the request's own problems in one usage error.
type flagProblems []string

func (p *flagProblems) addf(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}

func (p *flagProblems) add(err error) {
	if err != nil {
		*p = append(*p, err.Error())
	}
}

// check returns nil when no flag failed to parse; otherwise one usage
// error with every problem, the request's (validate) included.
func (p flagProblems) check(validate func() error) error {
	if len(p) == 0 {
		return nil
	}
	all := append([]string(nil), p...)
	if err := validate(); err != nil {
		all = append(all, err.Error())
	}
	return usageErrorf("%s", strings.Join(all, "; "))
}
