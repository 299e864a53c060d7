package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/collector"
)

// Inventory sources (collector's).
const (
	// InventoryKube keeps nodes and pods current with shared informers.
	InventoryKube = collector.InventoryKube
	// InventoryPrometheus takes them from kube-state-metrics series, read
	// with the usage (no API access needed).
	InventoryPrometheus = collector.InventoryPrometheus
)

// Options are everything `gpuwise serve` is told. Defaults live in
// DefaultOptions; Validate lists every problem.
type Options struct {
	// Listen is the address to serve on.
	Listen string
	// Cluster names this cluster in metrics (the cluster label) and in the
	// history store.
	Cluster string
	// Demo serves the embedded simulated cluster, its history included;
	// nothing else is read.
	Demo *app.DemoSource
	// DemoApplied: the demo carries out part of its plan (collector.Options).
	DemoApplied bool
	// Prometheus is the usage source (nil: usage unmeasured).
	Prometheus *app.PromSource
	// Inventory is InventoryKube or InventoryPrometheus.
	Inventory string
	Kube      app.KubeSource
	// Window is the rolling window the API and the window gauges cover;
	// Interval how often a cycle reads the new usage (it must divide an
	// hour); Lag how far behind now a cycle reads, so that scrapes have
	// landed.
	Window   time.Duration
	Interval time.Duration
	Lag      time.Duration
	// HistoryPath is the history database ("": a temporary file, removed
	// on Close);
	// HourlyRetention and DailyRetention how long rows are kept.
	HistoryPath     string
	HourlyRetention time.Duration
	DailyRetention  time.Duration
	// HistoryLabels are the pod labels the history also keeps rows by
	// (the showback's groupings: /api/v1/showback?by=label:team).
	HistoryLabels []string
	// Prices are the loaded prices (app.LoadPrices: the catalog, the
	// overrides, a cloud bill), loaded once by the front end; SetPrices
	// swaps them (SIGHUP). Policies are the loaded policy file
	// (app.LoadPolicies; nil: the defaults): the cycle's ledger and
	// /api/v1/report, recommend and plan use it; SetPolicies swaps it.
	Prices   *app.Prices
	Policies *app.Policies
	// MaxWorkloads caps the workloads exported by name (the rest sum into
	// __other__ per namespace); PodMetrics adds per-pod gauges.
	MaxWorkloads int
	PodMetrics   bool
	// Auth: a bearer token file, or a basic-auth file of "user:password"
	// lines; TLS: a certificate and key (both PEM). Files are read at start
	// and never echoed.
	BearerTokenFile string
	BasicAuthFile   string
	TLSCertFile     string
	TLSKeyFile      string
	// AllowedHosts are Host names a loopback service answers to besides
	// localhost and loopback addresses (a local reverse proxy's name);
	// other Hosts get 421 (DNS rebinding guard, docs/serve.md).
	AllowedHosts []string
	// ShutdownTimeout bounds a graceful shutdown.
	ShutdownTimeout time.Duration
	// UI is served at / (nil: the embedded dashboard).
	UI fs.FS
	// Version is gpuwise's version (build info, SARIF).
	Version string
	// MemoryHeadroom paces the Go soft memory limit after each published
	// state: the live heap plus this share of it (MemoryPacer; 0: not
	// paced, Go's own GOGC pacing). MemoryCap caps that limit (the
	// container's, by MemoryLimit; 0: none).
	MemoryHeadroom float64
	MemoryCap      int64
}

// DefaultOptions are the documented defaults. Listen is 127.0.0.1:8080
// outside a cluster and :8080 inside one (KUBERNETES_SERVICE_HOST set).
func DefaultOptions() Options {
	listen := "127.0.0.1:8080"
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		listen = ":8080"
	}
	return Options{Listen: listen, Cluster: "default", Inventory: InventoryKube, Kube: app.DefaultKube(),
		Window: 24 * time.Hour, Interval: 10 * time.Minute, Lag: time.Minute,
		HourlyRetention: 35 * 24 * time.Hour, DailyRetention: 400 * 24 * time.Hour,
		MaxWorkloads: 500, ShutdownTimeout: 20 * time.Second, HistoryLabels: DefaultHistoryLabels()}
}

// DefaultHistoryLabels are the labels the history keeps rows by unless
// --history-labels says otherwise.
func DefaultHistoryLabels() []string { return []string{"team", "cost-center", "environment"} }

// Validate lists every problem with the options, each naming its flag.
func (o Options) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		add("listen: %q is not host:port (%v)", o.Listen, err)
	}
	if !validLabel(o.Cluster) {
		add("cluster: %q must be 1-63 characters of letters, digits, '-', '_' or '.'", o.Cluster)
	}
	if o.DemoApplied && o.Demo == nil {
		add("demo-applied: it changes the simulated cluster; give --demo")
	}
	if o.Demo != nil && o.Prometheus != nil {
		add("demo: --demo serves the simulated cluster and reads no Prometheus; drop --prometheus")
	}
	if o.Inventory != InventoryKube && o.Inventory != InventoryPrometheus {
		add("inventory: %q is not kube or prometheus", o.Inventory)
	}
	if o.Inventory == InventoryPrometheus && o.Prometheus == nil && o.Demo == nil {
		add("inventory: prometheus needs --prometheus URL")
	}
	errs = append(errs, o.validateTimes()...)
	if !(o.MemoryHeadroom >= 0 && o.MemoryHeadroom <= 10) {
		add("memory-headroom: %v is outside 0..10 (a share of the live heap; 0: not paced)", o.MemoryHeadroom)
	}
	if o.MemoryCap < 0 {
		add("memory cap: %d is negative", o.MemoryCap)
	}
	if o.MaxWorkloads < 0 {
		add("metrics-max-workloads: %d is negative (0 means no limit)", o.MaxWorkloads)
	}
	if o.BearerTokenFile != "" && o.BasicAuthFile != "" {
		add("auth: pass --auth-token-file or --auth-basic-file, not both")
	}
	if (o.TLSCertFile == "") != (o.TLSKeyFile == "") {
		add("tls: --tls-cert-file and --tls-key-file go together")
	}
	return errors.Join(errs...)
}

func (o Options) validateTimes() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.Interval < time.Minute || o.Interval > time.Hour || time.Hour%o.Interval != 0 || o.Interval%time.Minute != 0 {
		add("interval: %s must be whole minutes dividing an hour (5m, 10m, 15m, 20m, 30m, 1h)", o.Interval)
	}
	if o.Window < 4*time.Hour || o.Window > 31*24*time.Hour || o.Window%time.Hour != 0 {
		add("window: %s must be whole hours from 4h to 31d", app.FormatWindow(o.Window))
	}
	if o.Lag < 0 || o.Lag > time.Hour {
		add("lag: %s is outside 0..1h", o.Lag)
	}
	if o.HourlyRetention < o.Window {
		add("history-hourly-retention: %s is shorter than the window %s", o.HourlyRetention, o.Window)
	}
	if o.DailyRetention < o.HourlyRetention {
		add("history-daily-retention: %s is shorter than the hourly retention %s", o.DailyRetention, o.HourlyRetention)
	}
	for _, l := range o.HistoryLabels {
		if l == "" || len(l) > 317 || strings.ContainsAny(l, ", =") {
			add("history-labels: %q is not a label key (team, cost-center, example.com/env)", l)
		}
	}
	if o.ShutdownTimeout <= 0 {
		add("shutdown-timeout: %s is not positive", o.ShutdownTimeout)
	}
	return errs
}

// collector is the part of o the cycle runs with.
func (o Options) collector() collector.Options {
	return collector.Options{Cluster: o.Cluster, Demo: o.Demo, DemoApplied: o.DemoApplied, Prometheus: o.Prometheus, Inventory: o.Inventory, Kube: o.Kube,
		Window: o.Window, Interval: o.Interval, Lag: o.Lag, HistoryPath: o.HistoryPath, HistoryLabels: o.HistoryLabels,
		HourlyRetention: o.HourlyRetention, DailyRetention: o.DailyRetention, Prices: o.Prices, Policies: o.Policies,
		MaxWorkloads: o.MaxWorkloads, PodMetrics: o.PodMetrics, Version: o.Version}
}

func validLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) < 0
}
