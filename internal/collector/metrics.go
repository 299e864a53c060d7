package collector

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/gpuwise/gpuwise/internal/exporter"
)

// selfMetrics are the service's own metrics: its cycles and its history
// store. The domain metrics are the exporter's.
type selfMetrics struct {
	cycles      *prometheus.CounterVec
	duration    prometheus.Histogram
	lastSuccess prometheus.Gauge
	reads       prometheus.Counter
	info        *prometheus.GaugeVec
}

// The service's own families, described once for the instruments and
// docs/metrics.md.
var (
	cyclesMetric = exporter.Metric{Name: "gpuwise_cycles_total", Type: "counter",
		Help:   "Cycles run, by result: success (every source read), partial (results published, some data missing) and failure (the last good results kept, marked stale).",
		Labels: []string{"result"}, Cardinality: "3"}
	durationMetric = exporter.Metric{Name: "gpuwise_cycle_duration_seconds", Type: "histogram",
		Help: "Wall time of a cycle: reading the new intervals, recording them and rebuilding the window's results.", Cardinality: "1 histogram (11 buckets)"}
	lastSuccessMetric = exporter.Metric{Name: "gpuwise_last_successful_cycle_timestamp_seconds", Type: "gauge",
		Help: "When the last cycle that published results (success or partial) finished, in Unix seconds.", Cardinality: "1"}
	readsMetric = exporter.Metric{Name: "gpuwise_intervals_read_total", Type: "counter",
		Help: "Intervals of usage read from the sources (each read covers only time not read before).", Cardinality: "1"}
	infoMetric = exporter.Metric{Name: "gpuwise_build_info", Type: "gauge",
		Help: "Always 1; the labels say which gpuwise is running and how its window is set.", Labels: []string{"version", "window", "interval"}, Cardinality: "1"}
)

// SelfMetrics are the service's own families, for docs/metrics.md.
var SelfMetrics = []*exporter.Metric{&cyclesMetric, &durationMetric, &lastSuccessMetric, &readsMetric, &infoMetric}

func newSelfMetrics() *selfMetrics {
	return &selfMetrics{
		cycles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: cyclesMetric.Name, Help: cyclesMetric.Help}, cyclesMetric.Labels),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: durationMetric.Name, Help: durationMetric.Help,
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: lastSuccessMetric.Name, Help: lastSuccessMetric.Help}),
		reads:       prometheus.NewCounter(prometheus.CounterOpts{Name: readsMetric.Name, Help: readsMetric.Help}),
		info:        prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: infoMetric.Name, Help: infoMetric.Help}, infoMetric.Labels),
	}
}

// register puts the service's own metrics on reg (never the global
// registry) and the domain collector on a registry of its own, labelled
// with the cluster as reg is by the front end: it is gathered once per
// published frame (Exposition), not on every scrape.
func (s *Collector) register(reg prometheus.Registerer) error {
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	s.frames = prometheus.NewRegistry()
	if err := prometheus.WrapRegistererWith(prometheus.Labels{"cluster": s.opts.Cluster}, s.frames).Register(s.collector); err != nil {
		return err
	}
	s.self = newSelfMetrics()
	for _, c := range []prometheus.Collector{s.self.cycles, s.self.duration, s.self.lastSuccess, s.self.reads, s.self.info,
		collectors.NewDBStatsCollector(s.store.DB(), "history")} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	for _, r := range []string{"success", "partial", "failure"} {
		s.self.cycles.WithLabelValues(r)
	}
	s.self.info.WithLabelValues(s.opts.Version, s.opts.Window.String(), s.opts.Interval.String()).Set(1)
	return nil
}

// observe counts a cycle.
func (m *selfMetrics) observe(res cycleResult, err error, d time.Duration, now time.Time) {
	result := "success"
	switch {
	case errors.Is(err, errCanceled):
		return
	case err != nil:
		result = "failure"
	case res.partial != nil:
		result = "partial"
	}
	m.cycles.WithLabelValues(result).Inc()
	m.duration.Observe(d.Seconds())
	m.reads.Add(float64(res.reads))
	if err == nil {
		m.lastSuccess.Set(float64(now.UnixNano()) / 1e9)
	}
}
