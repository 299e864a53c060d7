package prom

import (
	"context"
	"io"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/gpuwise/gpuwise/internal/usage"
)

// MaxPoints is Prometheus' limit on points per series in one query_range
// answer.
const MaxPoints = 11000

// Batch receives one request's series. A request that fails and is
// retried gets a fresh Batch, so a Batch only becomes part of the result
// through Commit, called once after its whole answer was read.
type Batch interface {
	Series(labels map[string]string) PointFunc
	Commit()
}

// Task is one query_range request: evaluation points From, From+Step, …,
// up to and including To.
type Task struct {
	Query    string
	From, To time.Time
	Step     time.Duration
	Open     func() Batch
	// Raw makes the task an instant query at To of a query that selects
	// a range vector (/api/v1/query): Prometheus answers the raw samples,
	// with no per-step evaluation. A Batch that is also a WeightedBatch
	// then gets each sample weighted by the time to the series' next
	// sample, at most Cap (the series' last sample: the gap before it).
	Raw bool
	Cap time.Duration
	// Remote reads a Raw task's samples in (From, To] by remote read
	// (streamed XOR chunks) of the series Matchers select, instead of by
	// Query, which then only names the task in errors. One request reads
	// the whole span, however long.
	Remote   bool
	Matchers []Matcher
	// Ends, for a Remote task, hands each series only its first and last
	// sample in (From, To] (NaNs left out): all that a Batch keeping a
	// series' first sighting and last value needs, with most chunks left
	// undecoded.
	Ends bool
}

// WeightedBatch is a Batch whose points each stand for a span of time.
type WeightedBatch interface {
	Batch
	Weighted(labels map[string]string) func(v, dt float64)
}

// Span is a run of evaluation points, both ends included.
type Span struct{ From, To time.Time }

// Split cuts the evaluation points start, start+step, …, ≤ end into spans
// of at most maxSteps points (capped at MaxPoints), so that consecutive
// spans never share a point.
func Split(start, end time.Time, step time.Duration, maxSteps int) []Span {
	if step <= 0 || end.Before(start) {
		return nil
	}
	maxSteps = min(max(maxSteps, 1), MaxPoints)
	n := int(end.Sub(start)/step) + 1
	var out []Span
	for j := 0; j < n; j += maxSteps {
		k := min(j+maxSteps, n) - 1
		out = append(out, Span{start.Add(time.Duration(j) * step), start.Add(time.Duration(k) * step)})
	}
	return out
}

// Run executes tasks on the client's worker pool and returns the errors of
// those that failed after their retries; the others are committed.
func (c *Client) Run(ctx context.Context, tasks []Task) []error {
	return c.run(ctx, tasks, c.cfg.Concurrency)
}

// run is Run with at most workers of the tasks in flight at once.
func (c *Client) run(ctx context.Context, tasks []Task, workers int) []error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan Task)
	for range min(max(workers, 1), c.cfg.Concurrency, len(tasks)) {
		wg.Go(func() {
			for t := range next {
				query := c.rangeQuery
				switch {
				case t.Raw && t.Remote:
					query = c.remoteQuery
				case t.Raw:
					query = c.rawQuery
				}
				if err := query(ctx, t); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, t := range tasks {
		next <- t
	}
	close(next)
	wg.Wait()
	return errs
}

func (c *Client) rangeQuery(ctx context.Context, t Task) error {
	form := url.Values{
		"query": {t.Query},
		"start": {unix(t.From)},
		"end":   {unix(t.To)},
		"step":  {strconv.FormatFloat(t.Step.Seconds(), 'f', -1, 64)},
	}
	var b Batch
	err := c.get(ctx, "/api/v1/query_range", form, t.Query, func(r io.Reader) error {
		b = t.Open()
		_, err := decodeMatrix(r, b.Series)
		return err
	})
	if err == nil {
		b.Commit()
	}
	return err
}

// rawQuery reads a range vector's raw samples with an instant query.
func (c *Client) rawQuery(ctx context.Context, t Task) error {
	form := url.Values{"query": {t.Query}, "time": {unix(t.To)}}
	var b Batch
	err := c.get(ctx, "/api/v1/query", form, t.Query, func(r io.Reader) error {
		b = t.Open()
		onSeries, _, flush := weighSeries(b, t.Cap)
		_, err := decodeMatrix(r, onSeries)
		flush()
		return err
	})
	if err == nil {
		b.Commit()
	}
	return err
}

// weighSeries returns where a raw answer's series go: for a WeightedBatch and
// a positive cap, through a weigher (flush weighs the last series' last
// sample; call it after the answer), else to the batch's Series. onSink,
// when not nil, takes the series instead when they come a chunk of
// samples at a time (remote read), with the same weighing.
func weighSeries(b Batch, cap time.Duration) (onSeries SeriesFunc, onSink func(seriesLabels) sampleSink, flush func()) {
	wb, ok := b.(WeightedBatch)
	if !ok || cap <= 0 {
		if sb, ok := b.(sinkBatch); ok {
			onSink = sb.sink
		}
		return b.Series, onSink, func() {}
	}
	w := &weigher{cap: cap.Seconds(), wb: wb}
	w.ab, _ = b.(accBatch)
	return func(l map[string]string) PointFunc {
			if !w.open(mapLabels(l)) {
				return nil
			}
			return w.point
		}, func(l seriesLabels) sampleSink {
			if !w.open(l) {
				return nil
			}
			return w
		}, w.flush
}

// sampleSink takes one series' samples a chunk at a time (remote read):
// in range, in time order, each timestamp once, no NaNs. end is called
// when the series ends.
type sampleSink interface {
	samples(xs []xorSample)
	end()
}

// sinkBatch is a Batch that takes remote read's series as sampleSinks.
type sinkBatch interface {
	Batch
	sink(labels seriesLabels) sampleSink
}

// accBatch is a WeightedBatch whose series each feed one usage
// accumulator: the weigher adds to it directly, with no call through a
// func value per sample.
type accBatch interface {
	WeightedBatch
	accumulator(labels seriesLabels) (accumulator, bool)
}

// accumulator is one series' usage accumulator: a Gauge, or an Activity
// that takes values × scale.
type accumulator struct {
	g     *usage.Gauge
	a     *usage.Activity
	scale float64
}

func (a accumulator) add(v, dt float64) {
	if a.g != nil {
		a.g.Add(v, dt)
		return
	}
	a.a.Add(v*a.scale, dt)
}

// weigher turns one series' raw samples into weighted points: each sample
// stands for the time to the next one, at most cap (a longer gap is not
// measured); the last stands for the gap before it, at most cap, or cap
// when it is alone. point takes one sample, samples a run of them (the
// same arithmetic, in a loop per kind of accumulator).
type weigher struct {
	cap          float64
	wb           WeightedBatch
	ab           accBatch // wb, when it has accumulators
	acc          accumulator
	add          func(v, dt float64) // without accumulators: wb's for the series
	have         bool
	prevT, prevV float64
	gap          float64
}

// open ends the previous series and starts one with labels l; false skips
// the series.
func (w *weigher) open(l seriesLabels) bool {
	w.flush()
	if w.ab != nil {
		acc, ok := w.ab.accumulator(l)
		w.acc = acc
		return ok
	}
	w.add = w.wb.Weighted(l.asMap())
	return w.add != nil
}

func (w *weigher) put(v, dt float64) {
	switch {
	case w.acc.g != nil:
		w.acc.g.Add(v, dt)
	case w.acc.a != nil:
		w.acc.a.Add(v*w.acc.scale, dt)
	default:
		w.add(v, dt)
	}
}

func (w *weigher) point(t, v float64) {
	if w.have {
		w.gap = t - w.prevT
		w.put(w.prevV, min(w.gap, w.cap))
	}
	w.prevT, w.prevV, w.have = t, v, true
}

// samples is point for each of xs (timestamps in ms).
func (w *weigher) samples(xs []xorSample) {
	if len(xs) == 0 {
		return
	}
	if !w.have {
		w.prevT, w.prevV, w.have = float64(xs[0].t)/1000, xs[0].v, true
		xs = xs[1:]
	}
	prevT, prevV, gap, lim := w.prevT, w.prevV, w.gap, w.cap
	switch {
	case w.acc.g != nil:
		g := w.acc.g
		for _, x := range xs {
			t := float64(x.t) / 1000
			gap = t - prevT
			g.Add(prevV, min(gap, lim))
			prevT, prevV = t, x.v
		}
	case w.acc.a != nil:
		a, scale := w.acc.a, w.acc.scale
		for _, x := range xs {
			t := float64(x.t) / 1000
			gap = t - prevT
			a.Add(prevV*scale, min(gap, lim))
			prevT, prevV = t, x.v
		}
	default:
		for _, x := range xs {
			t := float64(x.t) / 1000
			gap = t - prevT
			w.add(prevV, min(gap, lim))
			prevT, prevV = t, x.v
		}
	}
	w.prevT, w.prevV, w.gap = prevT, prevV, gap
}

func (w *weigher) end() { w.flush() }

func (w *weigher) flush() {
	if w.have {
		dt := w.cap
		if w.gap > 0 {
			dt = min(w.gap, w.cap)
		}
		w.put(w.prevV, dt)
	}
	w.have, w.gap, w.add, w.acc = false, 0, nil, accumulator{}
}

// Series lists the label sets of the series matching any of matchers
// between start and end (/api/v1/series).
func (c *Client) Series(ctx context.Context, start, end time.Time, matchers []string, each func(map[string]string)) error {
	form := url.Values{"match[]": matchers, "start": {unix(start)}, "end": {unix(end)}}
	var sets []map[string]string
	err := c.get(ctx, "/api/v1/series", form, joinMatchers(matchers), func(r io.Reader) error {
		sets = sets[:0]
		_, err := decodeSeries(r, func(l map[string]string) { sets = append(sets, l) })
		return err
	})
	if err != nil {
		return err
	}
	for _, l := range sets {
		each(l)
	}
	return nil
}

func joinMatchers(ms []string) string {
	s := ""
	for i, m := range ms {
		if i > 0 {
			s += " or "
		}
		s += m
	}
	return s
}

func unix(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', -1, 64)
}
