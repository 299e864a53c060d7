package exporter_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/exporter"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
	"github.com/gpuwise/gpuwise/internal/tally"
)

var update = flag.Bool("update", false, "rewrite golden files")

// demoFrame is the frame of the demo week, its totals being the week.
func demoFrame(t *testing.T, maxWorkloads int, pods bool) *exporter.Frame {
	t.Helper()
	snap, err := sim.Generate(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	prep, err := cluster.Prepare(snap)
	if err != nil {
		t.Fatal(err)
	}
	prices := pricing.Embedded()
	alloc, err := cost.Allocate(prep, prices, cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	by := func(key string) *cost.Report {
		o := cost.DefaultReportOptions()
		o.By = key
		r, err := cost.NewReport(alloc, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	led, err := ledger.Build(ledger.Input{Snapshot: prep, Prices: prices, Allocation: alloc}, ledger.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	f := &exporter.Frame{Window: snap.Window, Report: by("namespace"), GPUModels: by("gpu-model"), Mechanisms: by("mechanism"),
		Audit: audit.Run(prep, prices, audit.DefaultOptions()), Ledger: led, Fleet: exporter.NewFleet(snap.Nodes, snap.Window)}
	if pods {
		f.Pods = by("pod")
	}
	tot := exporter.NewTotals(maxWorkloads)
	tot.AddWorkloads(values(by("workload")))
	tot.AddModels(values(f.GPUModels))
	f.Totals = tot
	return f
}

func values(r *cost.Report) map[string]tally.Values {
	out := map[string]tally.Values{}
	for _, row := range r.Rows {
		out[row.Key] = cost.RowValues(row, r.WindowHours*3600, 0)
	}
	return out
}

func gather(t *testing.T, f *exporter.Frame) []byte {
	t.Helper()
	c := exporter.NewCollector()
	c.Publish(f)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// The demo's /metrics text is a golden file (go test -update rewrites it).
func TestDemoMetricsGolden(t *testing.T) {
	got := gather(t, demoFrame(t, 0, false))
	path := filepath.Join("testdata", "demo.metrics")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("metrics differ from %s (go test ./internal/exporter -update after an intended change)", path)
	}
}

// Every family passes promlint (units, _total, help) and the collector is
// consistent with its descriptors under the pedantic registry.
func TestMetricsLint(t *testing.T) {
	t.Parallel()
	c := exporter.NewCollector()
	c.Publish(demoFrame(t, 0, true))
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// Workloads past the cap are summed per namespace into __other__; a
// workload that has a name keeps it in later cycles, so counters only grow.
func TestWorkloadCapKeepsCountersMonotonic(t *testing.T) {
	t.Parallel()
	f := demoFrame(t, 5, false)
	text := string(gather(t, f))
	named := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "gpuwise_workload_gpu_allocated_seconds_total{") {
			w := l[strings.Index(l, `workload="`)+10:]
			named[w[:strings.IndexByte(w, '"')]] = true
		}
	}
	others := 0
	for w := range named {
		if w == exporter.OtherWorkload {
			others++
		}
	}
	if len(named)-others != 5 || others == 0 {
		t.Fatalf("%d named workloads and %d __other__, want 5 named and some other: %v", len(named)-others, others, named)
	}
	i := strings.Index(text, `",workload="__other__"`)
	ns := text[strings.LastIndex(text[:i], `namespace="`)+11 : i]
	next := f.Totals.Clone()
	next.AddWorkloads(map[string]tally.Values{ns + "/Job/brand-new": {GPUAllocatedHours: 1, TotalUSD: 1e9}})
	if next.Workloads() != f.Totals.Workloads() {
		t.Errorf("a new dear workload past the cap added a series: %d → %d", f.Totals.Workloads(), next.Workloads())
	}
	before, after := other(t, f.Totals, ns), other(t, next, ns)
	if after != before+3600 {
		t.Errorf("%s/__other__ allocated GPU-seconds %v → %v, want +3600", ns, before, after)
	}
}

// An unmeasured namespace has no utilization sample rather than 0.
func TestUnmeasuredRatioIsAbsent(t *testing.T) {
	t.Parallel()
	f := demoFrame(t, 0, false)
	rows := append([]cost.Row(nil), f.Report.Rows...)
	rows[0].GPUUtilization = nil
	r := *f.Report
	r.Rows = rows
	text := string(gather(t, &exporter.Frame{Report: &r, Window: f.Window}))
	if strings.Contains(text, `gpuwise_window_namespace_gpu_utilization_ratio{namespace="`+rows[0].Key+`"}`) {
		t.Errorf("namespace %s without measured hours has a utilization sample", rows[0].Key)
	}
}

func other(t *testing.T, tot *exporter.Totals, ns string) float64 {
	t.Helper()
	prefix := `gpuwise_workload_gpu_allocated_seconds_total{namespace="` + ns + `",workload="__other__"} `
	for _, l := range strings.Split(string(gather(t, &exporter.Frame{Totals: tot})), "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no __other__ series for namespace %s", ns)
	return 0
}

// Issue 32: a frame's exposition is encoded once per format (the last
// exposition's formats at once, the next cycle's included) and is what
// the registry's gather encodes.
func TestExpositionEncodesOncePerFormat(t *testing.T) {
	c := exporter.NewCollector()
	c.Publish(demoFrame(t, 0, false))
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	counting := &countingGatherer{g: reg}
	text := expfmt.NewFormat(expfmt.TypeTextPlain)
	x := exporter.NewExposition(counting, nil)
	if counting.n != 0 {
		t.Fatalf("%d gathers before a scrape with no format to warm", counting.n)
	}
	a, err := x.Encoded(text)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := x.Encoded(text)
	if counting.n != 1 || !bytes.Equal(a, b) || !bytes.Contains(a, []byte("gpuwise_window_seconds")) {
		t.Fatalf("%d gathers for two scrapes of one format (want 1); %d bytes", counting.n, len(a))
	}
	var want bytes.Buffer
	fams, _ := reg.Gather()
	enc := expfmt.NewEncoder(&want, text)
	for _, mf := range fams {
		enc.Encode(mf)
	}
	if !bytes.Equal(a, want.Bytes()) {
		t.Error("the encoding differs from the registry's")
	}
	next := exporter.NewExposition(counting, x)
	if counting.n != 2 {
		t.Errorf("the next exposition did not encode the last one's format at once (%d gathers)", counting.n)
	}
	if c, _ := next.Encoded(text); !bytes.Equal(c, a) || counting.n != 2 {
		t.Errorf("the warmed format was encoded again (%d gathers)", counting.n)
	}
	var none *exporter.Exposition
	if b, err := none.Encoded(text); b != nil || err != nil {
		t.Errorf("no frame yet: %q, %v", b, err)
	}
}

type countingGatherer struct {
	g prometheus.Gatherer
	n int
}

func (c *countingGatherer) Gather() ([]*dto.MetricFamily, error) {
	c.n++
	return c.g.Gather()
}

// The cost by mechanism adds up to the window's cost: every row of the
// report by mechanism is emitted, the pods without GPU units as "none".
func TestMechanismCostAddsUp(t *testing.T) {
	t.Parallel()
	text := string(gather(t, demoFrame(t, 0, false)))
	sum, window := 0.0, -1.0
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		var v float64
		switch {
		case strings.HasPrefix(line, "gpuwise_window_mechanism_cost_usd{"):
			name, val, _ := strings.Cut(line, "} ")
			if _, err := fmt.Sscan(val, &v); err != nil {
				t.Fatal(err)
			}
			sum += v
			seen[strings.TrimPrefix(name, `gpuwise_window_mechanism_cost_usd{mechanism="`)] = true
		case strings.HasPrefix(line, "gpuwise_window_cost_usd "):
			if _, err := fmt.Sscan(strings.TrimPrefix(line, "gpuwise_window_cost_usd "), &window); err != nil {
				t.Fatal(err)
			}
		}
	}
	if math.Abs(sum-window) > 0.005 {
		t.Errorf("cost by mechanism sums to $%.2f, the window's cost is $%.2f", sum, window)
	}
	for _, m := range []string{`device-plugin"`, `mig"`, `time-slicing"`, `none"`} {
		if !seen[m] {
			t.Errorf("no cost for mechanism %s (the demo has device-plugin, MIG and time-sliced GPUs): %v", m, seen)
		}
	}
}
