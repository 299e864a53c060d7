package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/serve"
)

type serveOptions struct {
	opts      serve.Options
	prom      promFlags
	kube      kubeFlags
	demo      bool
	demoSrc   app.DemoSource
	logFormat string
	logLevel  string
	memRatio  float64
	// prices, bills and policy are loaded at start and again on SIGHUP.
	prices string
	bills  []string
	policy string
}

func newServeCmd(e *env) *cobra.Command {
	o := &serveOptions{opts: serve.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "serve [--demo | --prometheus URL] [--listen ADDR]",
		Short: "Run in the cluster: keep history, export Prometheus metrics, serve the JSON API",
		Long: "serve keeps the inventory current with shared informers (read-only), reads Prometheus only for\n" +
			"the interval not read yet, records hourly aggregates in a history store, and serves the CLI's JSON\n" +
			"for a rolling window under /api/v1, Prometheus metrics on /metrics, /healthz and /readyz.\n" +
			"When a source fails it keeps serving the last good result, marked partial. --demo serves the\n" +
			"embedded simulated cluster with its week of history, no cluster needed. See docs/serve.md.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), o, e) },
	}
	o.register(cmd.Flags())
	return cmd
}

func (o *serveOptions) register(fs *pflag.FlagSet) {
	s := &o.opts
	def := app.DefaultDemo()
	fs.StringVar(&s.Listen, "listen", s.Listen, "address to serve on (default 127.0.0.1:8080; :8080 inside a cluster)")
	fs.StringVar(&s.Cluster, "cluster", s.Cluster, "this cluster's name: the cluster label on every metric and the history's key")
	fs.BoolVar(&o.demo, "demo", false, "serve the embedded simulated cluster and its week of history (no cluster needed)")
	fs.BoolVar(&o.opts.DemoApplied, "demo-applied", false, "with --demo: carry out the baseline plan's first node removal and spot move at hour 96, so that gpuwise progress and /api/v1/progress show actions applied and their realised dollars (the answers then differ from gpuwise demo's)")
	fs.Uint64Var(&o.demoSrc.Seed, "seed", def.Seed, "simulation seed (--demo)")
	fs.IntVar(&o.demoSrc.Scale, "scale", def.Scale, "cluster size multiplier (--demo)")
	o.prom.register(fs)
	o.kube.register(fs)
	fs.StringVar(&s.Inventory, "inventory", s.Inventory, "where nodes and pods come from: kube (shared informers) or prometheus (kube-state-metrics, no API access)")
	fs.Var(daysValue{&s.Window}, "window", "rolling window of the API and the window gauges (whole hours, 4h..31d)")
	fs.DurationVar(&s.Interval, "interval", s.Interval, "how often a cycle reads the new usage (divides an hour: 5m, 10m, 15m, 20m, 30m, 1h)")
	fs.DurationVar(&s.Lag, "lag", s.Lag, "how far behind now a cycle reads, so that scrapes have landed")
	fs.StringVar(&s.HistoryPath, "history", "", "history database file on a volume (default: a temporary file, removed on exit)")
	fs.StringSliceVar(&s.HistoryLabels, "history-labels", s.HistoryLabels, "pod labels the history also keeps rows by: the showback's and the dashboard's team groupings (/api/v1/showback?by=label:team)")
	fs.Var(daysValue{&s.HourlyRetention}, "history-hourly-retention", "how long hourly rows are kept")
	fs.Var(daysValue{&s.DailyRetention}, "history-daily-retention", "how long daily rows are kept")
	fs.StringVar(&o.prices, "prices", "", "price override file (YAML or CSV); reloaded with --bill on SIGHUP")
	registerBill(fs, &o.bills)
	fs.StringVar(&o.policy, "policy", "", "recommendation policy file for /api/v1/recommend and /plan; reloaded on SIGHUP")
	fs.IntVar(&s.MaxWorkloads, "metrics-max-workloads", s.MaxWorkloads, "workloads exported by name on /metrics; the rest sum into workload=\"__other__\" per namespace (0: no limit)")
	fs.BoolVar(&s.PodMetrics, "metrics-pods", false, "also export per-pod gauges (one series per pod: mind the cardinality)")
	fs.StringVar(&s.BearerTokenFile, "auth-token-file", "", "require this bearer token (file, e.g. a mounted Secret) on the API and /metrics")
	fs.StringVar(&s.BasicAuthFile, "auth-basic-file", "", "require basic auth: a file of user:password lines (e.g. a mounted Secret)")
	fs.StringSliceVar(&s.AllowedHosts, "allow-host", nil, "on a loopback --listen: also answer to this Host name (a local reverse proxy's); others get 421, a DNS rebinding guard (repeatable)")
	fs.StringVar(&s.TLSCertFile, "tls-cert-file", "", "serve HTTPS with this PEM certificate (reloaded when the file changes)")
	fs.StringVar(&s.TLSKeyFile, "tls-key-file", "", "the certificate's PEM key")
	fs.DurationVar(&s.ShutdownTimeout, "shutdown-timeout", s.ShutdownTimeout, "how long a graceful shutdown waits for requests in flight")
	fs.StringVar(&o.logFormat, "log-format", "json", "log format: json or text")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.Float64Var(&o.memRatio, "memory-limit-ratio", 0.9, "without GOMEMLIMIT: Go memory limit as this share of the container's memory limit (0: none)")
	fs.Float64Var(&s.MemoryHeadroom, "memory-headroom", s.MemoryHeadroom, "without GOMEMLIMIT: after each published state, set the Go memory limit to the live heap plus this share of it (at least 64 MiB; capped by the container's, above), so the heap does not grow to twice what is live; costs the cycle CPU (0, the default: Go's own pacing; measured with 0.25)")
}

// options are the serve.Options the flags describe.
func (o *serveOptions) options(p *flagProblems) serve.Options {
	s := o.opts
	s.Prometheus, s.Kube, s.Version = o.prom.source(p), o.kube.KubeSource, Version
	if s.Prometheus != nil && !s.Prometheus.End.IsZero() {
		p.addf("end: serve reads up to now; --end is for report")
	}
	if o.demo {
		d := o.demoSrc
		s.Demo = &d
		if o.kube.set() {
			p.addf("%s: for a live cluster, which serve --demo does not read: drop them, or drop --demo", o.kube.setNames())
		}
	}
	return s
}

func (o *serveOptions) logger(w *os.File, p *flagProblems) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(o.logLevel)); err != nil {
		p.addf("log-level: %q is not debug, info, warn or error", o.logLevel)
	}
	hopts := &slog.HandlerOptions{Level: lvl}
	switch o.logFormat {
	case "json":
		return slog.New(slog.NewJSONHandler(w, hopts))
	case "text":
		return slog.New(slog.NewTextHandler(w, hopts))
	}
	p.addf("log-format: %q is not json or text", o.logFormat)
	return slog.New(slog.DiscardHandler)
}

func runServe(ctx context.Context, o *serveOptions, e *env) error {
	var p flagProblems
	opts := o.options(&p)
	log := o.logger(os.Stderr, &p)
	if err := p.check(opts.Validate); err != nil {
		return err
	}
	if err := opts.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	if !(o.memRatio >= 0 && o.memRatio <= 1) {
		return usageErrorf("memory-limit-ratio: %v is outside 0..1", o.memRatio)
	}
	if n, from := serve.MemoryLimit(o.memRatio, os.Getenv, os.ReadFile); n > 0 {
		debug.SetMemoryLimit(n)
		opts.MemoryCap = n
		log.Info("go memory limit", "bytes", n, "ratio", o.memRatio, "container_limit", from)
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		opts.MemoryHeadroom = 0 // the user's limit stands
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	reg := prometheus.NewRegistry()
	labelled := prometheus.WrapRegistererWith(prometheus.Labels{"cluster": opts.Cluster}, reg)
	labelled.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	prices, err := app.LoadPrices(o.prices, o.bills)
	if err != nil {
		return err
	}
	opts.Prices = prices
	if opts.Policies, err = app.LoadPolicies(o.policy); err != nil {
		return err
	}
	svc, err := serve.New(ctx, opts, serve.Deps{App: e.app, Log: log, Registry: labelled})
	if err != nil {
		return err
	}
	defer svc.Close()
	go reloadPrices(ctx, o, svc, log)
	h, err := svc.Handler(reg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("listen: %w", err))
	}
	fmt.Fprintf(e.Err, "gpuwise serve: listening on %s (%s)\n", ln.Addr(), opts.Cluster)
	if err := svc.Serve(ctx, ln, h); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// reloadPrices reloads the price overrides and the bill, then the
// recommendation policy, on SIGHUP and swaps each into the service whole;
// a reload that fails keeps what is in use and says why.
func reloadPrices(ctx context.Context, o *serveOptions, svc *serve.Service, log *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			p, err := app.LoadPrices(o.prices, o.bills)
			if err != nil {
				log.Error("reloading prices failed: keeping the prices in use", "err", err)
				continue
			}
			svc.SetPrices(p)
			log.Info("prices reloaded", "prices", o.prices, "bills", len(o.bills))
			pols, err := app.LoadPolicies(o.policy)
			if err != nil {
				log.Error("reloading the policy failed: keeping the policy in use", "err", err)
				continue
			}
			svc.SetPolicies(pols)
			log.Info("policy reloaded", "policy", o.policy)
		}
	}
}
