package prom

import (
	"context"
	"io"
	"net/url"
	"strconv"
	"sync"
	"time"
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
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan Task)
	for range min(c.cfg.Concurrency, len(tasks)) {
		wg.Go(func() {
			for t := range next {
				if err := c.rangeQuery(ctx, t); err != nil {
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
