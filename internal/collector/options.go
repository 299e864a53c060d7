package collector

import (
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
)

// Inventory sources.
const (
	// InventoryKube keeps nodes and pods current with shared informers.
	InventoryKube = "kube"
	// InventoryPrometheus takes them from kube-state-metrics series, read
	// with the usage (no API access needed).
	InventoryPrometheus = "prometheus"
)

// Options are what the cycle is told: the part of `gpuwise serve`'s
// options (internal/serve, which validates them and names their flags)
// that chooses the sources, the window and the history.
type Options struct {
	// Cluster names this cluster in metrics and in the history store.
	Cluster string
	// Demo serves the embedded simulated cluster, its history included;
	// nothing else is read.
	Demo *app.DemoSource
	// DemoApplied carries out part of the demo's plan at hour 96 (the
	// baseline ledger's first node removal and spot move) so that the
	// tracked plan shows actions applied (docs/progress.md); the demo's
	// answers then differ from gpuwise demo's.
	DemoApplied bool
	// Prometheus is the usage source (nil: usage unmeasured).
	Prometheus *app.PromSource
	// Inventory is InventoryKube or InventoryPrometheus.
	Inventory string
	Kube      app.KubeSource
	// Window is the rolling window; Interval how often a cycle reads the
	// new usage (it divides an hour); Lag how far behind now a cycle reads.
	Window   time.Duration
	Interval time.Duration
	Lag      time.Duration
	// HistoryPath is the history database ("": a temporary file, removed
	// on Close).
	HistoryPath string
	// HistoryLabels are the pod labels the history also keeps rows by
	// (kind label:KEY, e.g. team): the showback's groupings.
	HistoryLabels []string
	// HourlyRetention and DailyRetention are how long the history keeps
	// hourly rows (and cycles) and daily rows; a cycle that recorded
	// something prunes older ones, at most once an hour. 0 keeps them.
	HourlyRetention time.Duration
	DailyRetention  time.Duration
	// Prices are the loaded prices (app.LoadPrices), swapped by SetPrices.
	Prices *app.Prices
	// Policies are the loaded policy file (app.LoadPolicies; nil: the
	// defaults) whose sections the cycle's savings ledger uses, swapped by
	// SetPolicies.
	Policies *app.Policies
	// MaxWorkloads caps the workloads the counters export by name;
	// PodMetrics adds the per-pod breakdown to the metrics frame.
	MaxWorkloads int
	PodMetrics   bool
	// Version is gpuwise's version (gpuwise_build_info).
	Version string
}

// Segment is the ring's segment: a quarter of the window in whole hours,
// so a window report covers between the window and a segment more.
func (o Options) Segment() time.Duration {
	return max(time.Hour, (o.Window / 4).Truncate(time.Hour))
}
