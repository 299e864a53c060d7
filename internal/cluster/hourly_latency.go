package cluster

import (
	"fmt"
	"math"
	"slices"
)

// LatencyHours is a serving latency histogram hour by hour: the requests
// that fell in each bucket of the server's histogram (docs/serving-metrics.md:
// vLLM vllm:e2e_request_latency_seconds, TGI tgi_request_duration), summed
// over the workload's pods. Bounds are stored once per workload and each
// hour holds the increments of its buckets, not the cumulative counts.
type LatencyHours struct {
	// Metric is the histogram's name, without _bucket.
	Metric string `json:"metric"`
	// Bounds are the buckets' finite upper bounds (le) in seconds,
	// ascending; a last bucket above the largest (+Inf) is implied.
	Bounds []float64 `json:"bounds"`
	// Counts are the requests per bucket and hour: for hour i (of the
	// workload's series), Counts[i·B : (i+1)·B] with B = len(Bounds)+1,
	// the last one the +Inf bucket's. An hour without data is B NaNs —
	// never zeros, which would be an hour that served nothing.
	Counts Series `json:"counts"`
}

// Buckets is the number of buckets an hour holds (the finite ones and
// +Inf).
func (l *LatencyHours) Buckets() int { return len(l.Bounds) + 1 }

// Hour returns hour i's bucket counts (shared, not copied), nil when the
// hour has no data or is out of range.
func (l *LatencyHours) Hour(i int) []float32 {
	if l == nil {
		return nil
	}
	b := l.Buckets()
	if i < 0 || (i+1)*b > len(l.Counts) {
		return nil
	}
	row := l.Counts[i*b : (i+1)*b : (i+1)*b]
	if row[0] != row[0] {
		return nil
	}
	return row
}

// Sum adds the bucket counts of hours [from, to) into into (len
// Buckets(), allocated when nil) and returns it with the number of hours
// that had data.
func (l *LatencyHours) Sum(from, to int, into []float64) ([]float64, int) {
	if into == nil {
		into = make([]float64, l.Buckets())
	}
	n := 0
	for i := max(from, 0); i < to; i++ {
		row := l.Hour(i)
		if row == nil {
			continue
		}
		n++
		for j, v := range row {
			into[j] += float64(v)
		}
	}
	return into, n
}

// within is the hours [lo, hi) of the series.
func (l *LatencyHours) within(lo, hi int) *LatencyHours {
	if l == nil {
		return nil
	}
	b := l.Buckets()
	c := *l
	c.Counts = l.Counts[lo*b : hi*b : hi*b]
	return &c
}

// check validates the histogram against the workload's n hours.
func (l *LatencyHours) check(workload string, n int) []error {
	if l == nil {
		return nil
	}
	switch {
	case l.Metric == "":
		return []error{fmt.Errorf("hourly %s: latency has no metric name", workload)}
	case len(l.Bounds) == 0:
		return []error{fmt.Errorf("hourly %s: latency %s has no bucket bounds", workload, l.Metric)}
	case len(l.Counts) != n*l.Buckets():
		return []error{fmt.Errorf("hourly %s: latency %s has %d counts, want %d hours × %d buckets", workload, l.Metric, len(l.Counts), n, l.Buckets())}
	}
	for i, b := range l.Bounds {
		if math.IsNaN(b) || math.IsInf(b, 0) || (i > 0 && !(b > l.Bounds[i-1])) {
			return []error{fmt.Errorf("hourly %s: latency %s: bounds %v are not finite and ascending", workload, l.Metric, l.Bounds)}
		}
	}
	b := l.Buckets()
	for i := range n {
		row := l.Counts[i*b : (i+1)*b]
		gap := row[0] != row[0]
		for _, v := range row {
			switch {
			case (v != v) != gap:
				return []error{fmt.Errorf("hourly %s: latency %s: hour %d mixes counts and no data (NaN)", workload, l.Metric, i)}
			case v < 0 || math.IsInf(float64(v), 0):
				return []error{fmt.Errorf("hourly %s: latency %s: hour %d: %g is negative or infinite", workload, l.Metric, i, v)}
			}
		}
	}
	return nil
}

// latencyAcc accumulates one histogram: per bucket, a window-long array
// of requests, and the hours any sample covered.
type latencyAcc struct {
	metric string
	bounds []float64
	counts [][]float64
	seen   []float64
}

// latency returns the workload's histogram accumulator for metric and
// bounds; false when the workload already has another (one histogram a
// workload: the first metric wins).
func (a *HourlyAcc) latency(metric string, bounds []float64) (*latencyAcc, bool) {
	if a.lat == nil {
		a.lat = &latencyAcc{metric: metric, bounds: slices.Clone(bounds), counts: make([][]float64, len(bounds)+1)}
	}
	l := a.lat
	return l, l.metric == metric && slices.Equal(l.bounds, bounds)
}

// Latency records a span's requests per second in each bucket of a
// latency histogram (len(bounds)+1 rates, the last the +Inf bucket's, not
// cumulative).
func (a *HourlyAcc) Latency(sp Span, metric string, bounds []float64, perBucket []float64) {
	l, ok := a.latency(metric, bounds)
	if !ok || len(perBucket) != len(l.counts) {
		return
	}
	for j, r := range perBucket {
		sp.add(a.alloc(&l.counts[j]), r)
	}
	sp.add(a.alloc(&l.seen), 1)
}

// AddLatencyBins adds a pod's latency histogram: per bucket bound (the
// last +Inf), the increments per hour of its cumulative _bucket counter
// (requests at or below the bound), as Prometheus exposes them; the
// hours with any bins count as measured. Bucket counts are the
// differences of neighbouring bounds, a negative one (counters read at
// slightly different times) taken as 0.
func (a *HourlyAcc) AddLatencyBins(metric string, bounds []float64, cumulative []*Bins) {
	l, ok := a.latency(metric, bounds)
	if !ok || len(cumulative) != len(l.counts) {
		return
	}
	lo, hi := math.MaxInt, math.MinInt
	for _, b := range cumulative {
		if b != nil && len(b.S) > 0 {
			lo, hi = min(lo, b.From), max(hi, b.From+len(b.S))
		}
	}
	if lo >= hi {
		return
	}
	seen := a.alloc(&l.seen)
	for j := range l.counts {
		arr := a.alloc(&l.counts[j])
		for h := max(lo, 0); h < min(hi, a.b.hours); h++ {
			v := cumulative[j].At(h)
			if j > 0 {
				v -= cumulative[j-1].At(h)
			}
			arr[h] += max(v, 0)
		}
	}
	for h := max(lo, 0); h < min(hi, a.b.hours); h++ {
		seen[h]++
	}
}

// build is the histogram over hours [lo, hi); nil when no hour had data.
func (l *latencyAcc) build(lo, hi int) *LatencyHours {
	if l == nil || l.seen == nil {
		return nil
	}
	b := len(l.counts)
	out := &LatencyHours{Metric: l.metric, Bounds: l.bounds, Counts: make(Series, (hi-lo)*b)}
	any := false
	for h := lo; h < hi; h++ {
		row := out.Counts[(h-lo)*b : (h-lo+1)*b]
		if l.seen[h] == 0 {
			for j := range row {
				row[j] = float32(math.NaN())
			}
			continue
		}
		any = true
		for j := range row {
			if l.counts[j] != nil {
				row[j] = float32(l.counts[j][h])
			}
		}
	}
	if !any {
		return nil
	}
	return out
}

// HistogramQuantile is the q-quantile (0 ≤ q ≤ 1) of a histogram's bucket
// counts (len(bounds)+1, the last +Inf, not cumulative), interpolated
// linearly inside its bucket as Prometheus' histogram_quantile does: the
// first bucket starts at 0 (a bound at or below 0: the bound itself), a
// quantile in the +Inf bucket is the largest finite bound. NaN when the
// histogram holds no request.
func HistogramQuantile(q float64, bounds []float64, counts []float64) float64 {
	var total float64
	for _, c := range counts {
		total += c
	}
	if !(total > 0) || len(counts) != len(bounds)+1 || math.IsNaN(q) {
		return math.NaN()
	}
	q = min(max(q, 0), 1)
	rank := q * total
	var cum float64
	for j, c := range counts {
		if cum+c < rank { // the first bucket whose cumulative count reaches the rank
			cum += c
			continue
		}
		if j == len(bounds) {
			return bounds[len(bounds)-1]
		}
		start := 0.0
		if j > 0 {
			start = bounds[j-1]
		} else if bounds[0] <= 0 {
			return bounds[0]
		}
		if c == 0 { // only the first bucket at q = 0
			return start
		}
		return start + (bounds[j]-start)*(rank-cum)/c
	}
	return bounds[len(bounds)-1]
}

// latSums are a workload's latency histogram sums on the absolute hour
// axis (HourSums): per hour [lo, lo+n), the bucket counts then the
// seconds of samples (or bins) that measured it, B+1 values an hour.
type latSums struct {
	metric string
	bounds []float64
	lo     int64
	n      int
	rows   []float64
}

func (l *latSums) width() int { return len(l.bounds) + 2 }

// sums packs the accumulator's hours with any measurement; nil when none.
func (l *latencyAcc) sums(base int64) *latSums {
	if l == nil || l.seen == nil {
		return nil
	}
	lo, hi := len(l.seen), 0
	for h, s := range l.seen {
		if s > 0 {
			lo, hi = min(lo, h), max(hi, h+1)
		}
	}
	if lo >= hi {
		return nil
	}
	out := &latSums{metric: l.metric, bounds: l.bounds, lo: base + int64(lo), n: hi - lo}
	w := out.width()
	out.rows = make([]float64, out.n*w)
	for h := lo; h < hi; h++ {
		row := out.rows[(h-lo)*w : (h-lo+1)*w]
		for j, c := range l.counts {
			if c != nil {
				row[j] = c[h]
			}
		}
		row[w-1] = l.seen[h]
	}
	return out
}

// mergeLat returns a and b added (neither changed); a histogram of
// another metric or other bounds than a's is left out, as a builder
// would (the first wins).
func mergeLat(a, b *latSums) *latSums {
	switch {
	case b == nil && a == nil:
		return nil
	case b == nil:
		return mergeLat(nil, a)
	case a == nil:
		c := *b
		c.rows = slices.Clone(b.rows)
		return &c
	case a.metric != b.metric || !slices.Equal(a.bounds, b.bounds):
		return mergeLat(nil, a)
	}
	lo, hi := min(a.lo, b.lo), max(a.lo+int64(a.n), b.lo+int64(b.n))
	out := &latSums{metric: a.metric, bounds: a.bounds, lo: lo, n: int(hi - lo)}
	w := out.width()
	out.rows = make([]float64, out.n*w)
	for _, s := range []*latSums{a, b} {
		off := int(s.lo-lo) * w
		for i, v := range s.rows {
			out.rows[off+i] += v
		}
	}
	return out
}

// place puts the sums of the hours of b's window into the accumulator.
func (l *latSums) place(a *HourlyAcc, base int64) {
	if l == nil {
		return
	}
	acc, _ := a.latency(l.metric, l.bounds)
	w := l.width()
	for i := range l.n {
		h := l.lo + int64(i) - base
		if h < 0 || h >= int64(a.b.hours) {
			continue
		}
		row := l.rows[i*w : (i+1)*w]
		for j := range acc.counts {
			a.alloc(&acc.counts[j])[h] = row[j]
		}
		a.alloc(&acc.seen)[h] = row[w-1]
	}
}
