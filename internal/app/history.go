package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/compare"
	"github.com/gpuwise/gpuwise/internal/history"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// History is a history store (the SQLite file `gpuwise serve` records
// into) opened for its use cases: Series (what /api/v1/history answers)
// and Compare (`report --compare --history` and /api/v1/compare). The CLI
// and the service both call these; neither reads the store itself.
type History struct{ st *history.Store }

// OpenHistory opens (creating or migrating) the history at path
// (history.InMemory: in memory only).
func OpenHistory(ctx context.Context, path string) (*History, error) {
	st, err := history.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return &History{st: st}, nil
}

// OpenExistingHistory opens a history another process may be writing, to
// read it (report --compare --history): the file must exist and nothing
// is locked (history.OpenExisting).
func OpenExistingHistory(ctx context.Context, path string) (*History, error) {
	st, err := history.OpenExisting(ctx, path)
	if err != nil {
		return nil, err
	}
	return &History{st: st}, nil
}

// HistoryDamaged reports whether err says a history file is corrupt or
// not a database (history.Damaged): no retry helps, the file must be
// restored or replaced.
func HistoryDamaged(err error) bool { return history.Damaged(err) }

// Close closes the store.
func (h *History) Close() error { return h.st.Close() }

// Store is the store itself, for the service's recording (internal/collector).
func (h *History) Store() *history.Store { return h.st }

// HistoryKinds maps a report's --by to the history's kinds (what the
// service records, per interval, and what a history comparison reads).
var HistoryKinds = map[string]string{"workload": tally.Workload, "namespace": tally.Namespace, "node": tally.Node, "gpu-model": tally.GPUModel}

// Granularities of a history series.
const (
	HistoryHourly = string(history.Hourly)
	HistoryDaily  = string(history.Daily)
)

// Limits on one history series: hours for 93 days, days for 800.
const (
	maxHourlyRange = 93 * 24 * time.Hour
	maxDailyRange  = 800 * 24 * time.Hour
)

// AllClusters, as a history request's Cluster, sums every cluster the
// store holds (so does "").
const AllClusters = "*"

func storeCluster(c string) string {
	if c == AllClusters {
		return ""
	}
	return c
}

// HistorySeriesRequest asks for one kind's buckets over [From, To).
type HistorySeriesRequest struct {
	// Cluster is the cluster whose rows to read (AllClusters or "": all).
	Cluster string
	// Kind is one of tally.Kinds; Key, when set, the one key to read.
	Kind string
	Key  string
	From time.Time
	To   time.Time
	// Step is HistoryHourly or HistoryDaily.
	Step string
	// Top, when positive, keeps the Top keys of the largest total $ over
	// the range (and the unallocated key) and sums the rest per bucket
	// into OtherKey: a chart's groups, summed here and not in a browser.
	Top int
}

// OtherKey is the key a series' keys outside its Top are summed into.
const OtherKey = "__other__"

// Validate lists every problem with the request, each naming its
// parameter.
func (r HistorySeriesRequest) Validate() error {
	var errs []error
	if err := CheckHistoryKind(r.Kind); err != nil {
		errs = append(errs, err)
	}
	limit := maxHourlyRange
	switch r.Step {
	case HistoryDaily:
		limit = maxDailyRange
	case HistoryHourly:
	default:
		errs = append(errs, fmt.Errorf("step: %q is not hour or day", r.Step))
	}
	if !r.To.After(r.From) {
		errs = append(errs, fmt.Errorf("to: %s is not after from %s", r.To.Format(time.RFC3339), r.From.Format(time.RFC3339)))
	} else if r.To.Sub(r.From) > limit {
		errs = append(errs, fmt.Errorf("from..to: %s is longer than the %s one answer holds at step %s", r.To.Sub(r.From), limit, r.Step))
	}
	return errors.Join(errs...)
}

// CheckHistoryKind says why kind is not one of the history's kinds (or
// a recorded label, LabelKind), or nil.
func CheckHistoryKind(kind string) error {
	if slices.Contains(tally.Kinds, kind) || strings.HasPrefix(kind, "label:") && len(kind) > len("label:") {
		return nil
	}
	return fmt.Errorf("kind: %q is not one of %v or label:KEY (a label serve --history-labels records)", kind, tally.Kinds)
}

// HistoryPoint is one bucket of one key, with its utilization.
type HistoryPoint struct {
	history.Point
	Utilization *float64 `json:"gpu_utilization"`
}

// HistorySeries is one kind's buckets, the store's coverage of the range
// and the fleet.
type HistorySeries struct {
	Cluster  string           `json:"cluster"`
	Kind     string           `json:"kind"`
	Step     string           `json:"step"`
	From     time.Time        `json:"from"`
	To       time.Time        `json:"to"`
	Coverage history.Coverage `json:"coverage"`
	Points   []HistoryPoint   `json:"points"`
	// Fleet is the cluster's GPUs by model and sharing mode at the end of
	// each bucket's latest cycle, whatever the kind.
	Fleet []history.FleetPoint `json:"fleet"`
}

// Series reads req's buckets, coverage and fleet.
func (h *History) Series(ctx context.Context, req HistorySeriesRequest) (*HistorySeries, error) {
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	q := history.Query{Cluster: storeCluster(req.Cluster), Kind: req.Kind, Key: req.Key, From: req.From, To: req.To,
		Granularity: history.Granularity(req.Step)}
	pts, err := h.st.Series(ctx, q)
	if err != nil {
		return nil, err
	}
	cov, err := h.st.Coverage(ctx, q.Cluster, q.From, q.To)
	if err != nil {
		return nil, err
	}
	fl, err := h.st.Fleet(ctx, q)
	if err != nil {
		return nil, err
	}
	if req.Top > 0 {
		pts = topKeys(pts, req.Top)
	}
	a := &HistorySeries{Cluster: req.Cluster, Kind: req.Kind, Step: req.Step, From: req.From, To: req.To,
		Coverage: cov, Points: make([]HistoryPoint, len(pts)), Fleet: fl}
	for i, p := range pts {
		a.Points[i] = HistoryPoint{Point: p, Utilization: p.Utilization()}
	}
	return a, nil
}

// topKeys keeps the n keys of the largest total $ (ties by key) and the
// unallocated key, and sums the others per bucket into OtherKey, in
// bucket then key order.
func topKeys(pts []history.Point, n int) []history.Point {
	tot := map[string]float64{}
	for _, p := range pts {
		tot[p.Key] += p.TotalUSD
	}
	keys := make([]string, 0, len(tot))
	for k := range tot {
		if k != compare.UnallocatedKey {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		if tot[a] != tot[b] {
			if tot[a] > tot[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	keep := map[string]bool{compare.UnallocatedKey: true}
	for _, k := range keys[:min(n, len(keys))] {
		keep[k] = true
	}
	out := make([]history.Point, 0, len(pts))
	other := map[time.Time]int{}
	for _, p := range pts {
		if keep[p.Key] {
			out = append(out, p)
			continue
		}
		if i, ok := other[p.Bucket]; ok {
			out[i].Values.Add(p.Values)
			continue
		}
		p.Key = OtherKey
		other[p.Bucket] = len(out)
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b history.Point) int {
		if c := a.Bucket.Compare(b.Bucket); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// HistoryCompareRequest compares the window of length Window ending at End
// with the same window Period earlier, per key of Kind.
type HistoryCompareRequest struct {
	// Cluster is the cluster whose rows to read (AllClusters or "": all).
	Cluster string
	Kind    string
	// End is the later window's end; zero: the end of the last cycle
	// recorded for Cluster.
	End time.Time
	// Window is each side's length (0: Period); Period how far earlier the
	// earlier side is.
	Window time.Duration
	Period time.Duration
}

// Validate lists every problem with the request.
func (r HistoryCompareRequest) Validate() error {
	var errs []error
	if err := CheckHistoryKind(r.Kind); err != nil {
		errs = append(errs, err)
	}
	if r.Period <= 0 {
		errs = append(errs, fmt.Errorf("period: %s is not positive", r.Period))
	}
	if r.Window < 0 {
		errs = append(errs, fmt.Errorf("window: %s is negative", r.Window))
	}
	return errors.Join(errs...)
}

// hourlyReach is how long a period may be and still be compared on hourly
// rows; longer ones read the daily rollup.
const hourlyReach = 45 * 24 * time.Hour

// Compare compares the earlier window with the later one, per key of
// req.Kind (every cluster summed unless req.Cluster names one), from the
// hourly rows, or the daily ones for windows longer than 45 days. A note
// says when a window is not fully covered by recorded cycles: a key
// missing from it was not seen, which is not the same as free.
func (h *History) Compare(ctx context.Context, req HistoryCompareRequest) (*compare.Diff, error) {
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	cl := storeCluster(req.Cluster)
	end := req.End
	if end.IsZero() {
		var err error
		if end, err = h.lastCycle(ctx, cl); err != nil {
			return nil, err
		}
	}
	window := req.Window
	if window == 0 {
		window = req.Period
	}
	before, after := historyWindows(end, window, req.Period)
	q := history.Query{Cluster: cl, Kind: req.Kind, Granularity: history.Hourly}
	if max(before.Seconds(), after.Seconds()) > hourlyReach.Seconds() {
		q.Granularity = history.Daily
	}
	b, err := h.side(ctx, q, before.Start, before.End)
	if err != nil {
		return nil, err
	}
	a, err := h.side(ctx, q, after.Start, after.End)
	if err != nil {
		return nil, err
	}
	d := compare.Compare(q.Kind, b, a)
	for _, s := range []struct {
		name string
		w    cluster.Window
	}{{"earlier", before}, {"later", after}} {
		cov, err := h.st.Coverage(ctx, q.Cluster, s.w.Start, s.w.End)
		if err != nil {
			return nil, err
		}
		if want := s.w.Seconds(); cov.Seconds < want*0.999 {
			d.Notes = append(d.Notes, fmt.Sprintf("the history covers %.0f%% of the %s window: keys missing from it were not seen, not free", 100*cov.Seconds/want, s.name))
		}
	}
	return d, nil
}

// historyWindows are the two sides of comparing the window of length
// window ending at end with the same window shift earlier.
func historyWindows(end time.Time, window, shift time.Duration) (before, after cluster.Window) {
	after = cluster.Window{Start: end.Add(-window), End: end}
	before = cluster.Window{Start: after.Start.Add(-shift), End: end.Add(-shift)}
	return before, after
}

// lastCycle is the end of the last cycle recorded for cluster ("" any).
func (h *History) lastCycle(ctx context.Context, cluster string) (time.Time, error) {
	names := []string{cluster}
	if cluster == "" {
		var err error
		if names, err = h.st.Clusters(ctx); err != nil {
			return time.Time{}, err
		}
	}
	var end time.Time
	for _, n := range names {
		t, err := h.st.Last(ctx, n)
		if err != nil {
			return time.Time{}, err
		}
		if t.After(end) {
			end = t
		}
	}
	if end.IsZero() {
		return end, fmt.Errorf("the history holds no cycle for cluster %q", cluster)
	}
	return end, nil
}

func (h *History) side(ctx context.Context, q history.Query, from, to time.Time) (compare.Side, error) {
	q.From, q.To = from, to
	tot, err := h.st.Totals(ctx, q)
	if err != nil {
		return compare.Side{}, err
	}
	label := fmt.Sprintf("%s..%s", from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
	return compare.Side{Label: label, Window: cluster.Window{Start: from, End: to}, Keys: HistoryFigures(tot)}, nil
}

// HistoryFigures turns history values into comparison figures.
func HistoryFigures(vs map[string]tally.Values) map[string]compare.Figures {
	out := make(map[string]compare.Figures, len(vs))
	for k, v := range vs {
		f := compare.Figures{Pods: int(v.Pods), GPUAllocatedHours: v.GPUAllocatedHours, GPUActiveHours: v.GPUActiveHours,
			GPUIdleHours: v.GPUIdleHours, GPUUnmeasuredHours: v.GPUUnmeasuredHours, Utilization: v.Utilization()}
		if v.Priced() {
			idle, tot := v.GPUIdleUSD+v.GPUUnallocatedUSD, v.TotalUSD
			f.IdleUSD, f.TotalUSD = &idle, &tot
		}
		oom := int(v.OOMKills)
		f.OOMKills = &oom
		out[k] = f
	}
	return out
}
