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
	f.src = app.DefaultPromSource()
	def := f.src.Options
	c, o := &f.src.Client, &f.src.Options
	fs.StringVar(&c.URL, "prometheus", "", "read the whole snapshot from this Prometheus (or Thanos, Mimir, VictoriaMetrics) URL; a password in it is never shown, a query string is refused")
	fs.StringVar(&c.BearerTokenFile, "prometheus-bearer-token-file", "", "file holding a bearer token for Prometheus")
	fs.StringVar(&c.Username, "prometheus-user", "", "basic-auth user for Prometheus")
	fs.StringVar(&c.PasswordFile, "prometheus-password-file", "", "file holding the basic-auth password")
	fs.StringVar(&c.CAFile, "prometheus-ca-file", "", "PEM CA bundle that signs Prometheus' certificate")
	fs.BoolVar(&c.Insecure, "prometheus-insecure-skip-verify", false, "do not verify Prometheus' TLS certificate")
	fs.StringArrayVar(&f.headers, "prometheus-header", nil, "extra header KEY=VALUE on every request, e.g. X-Scope-OrgID=team-a (repeatable)")
	fs.DurationVar(&c.Timeout, "prometheus-timeout", def.Client.Timeout, "timeout of one Prometheus request")
	fs.IntVar(&c.Retries, "prometheus-retries", def.Client.Retries, fmt.Sprintf("retries of a request that timed out or got a 5xx/429 (at most %d), with exponential backoff up to %s or the Retry-After asked for (at most %d retries for all requests together; after %d failures to connect in a row no more requests are sent)", app.MaxPromRetries, def.Client.MaxBackoff, def.Client.RetryBudget, def.Client.BreakerFailures))
	fs.DurationVar(&c.ProbeTimeout, "prometheus-probe-timeout", def.Client.ProbeTimeout, "how long the first request (the node listing) may take, retries included: a Prometheus that accepts connections and never answers fails the read in this time")
	fs.DurationVar(&o.Deadline, "prometheus-deadline", def.Deadline, "how long the whole Prometheus read may take, every request and retry together")
	fs.IntVar(&c.Concurrency, "prometheus-concurrency", def.Client.Concurrency, "Prometheus requests in flight at once")
	fs.DurationVar(&o.Step, "step", def.Step, "resolution of usage series from Prometheus; at least the scrape interval")
	fs.StringVar(&f.end, "end", "", "window end for --prometheus, RFC 3339 (default: now, rounded down to --step)")
	fs.IntVar(&o.ShardSize, "prometheus-shard-size", def.ShardSize, "nodes per usage query")
	fs.StringVar(&o.Read, "prometheus-read", def.Read, "how usage series are read: remote (raw samples by remote read, /api/v1/read with streamed XOR chunks), raw (raw samples by instant queries of range vectors; no per-step evaluation in Prometheus), range (query_range at --step), or auto: raw samples where they come about once a --step (by remote read when the server supports it), range where they are denser")
	fs.StringVar(&c.Gzip, "prometheus-gzip", def.Client.Gzip, "ask for gzip answers: auto (on unless Prometheus is on a loopback address), on, off")
	fs.IntVar(&o.Limits.MaxSeries, "prometheus-max-series", def.Limits.MaxSeries, "most series one Prometheus answer may hold")
	fs.IntVar(&o.Limits.MaxLabelBytes, "prometheus-max-label-bytes", def.Limits.MaxLabelBytes, "longest label name or value a Prometheus answer may hold")
	fs.Int64Var(&c.MaxResponseBytes, "prometheus-max-response-bytes", def.Client.MaxResponseBytes, "largest Prometheus answer, after decompression")
}

// source is the Prometheus source the flags describe (nil without
// --prometheus); problems are the flag values that do not parse.
func (f *promFlags) source(p *flagProblems) *app.PromSource {
	if f.src.Client.URL == "" {
		return nil
	}
	s := f.src
	s.Client.Headers = map[string]string{}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			p.addf("prometheus-header: %q is not KEY=VALUE", h)
			continue
		}
		s.Client.Headers[strings.TrimSpace(k)] = v
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
