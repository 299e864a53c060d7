package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/api"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// Runner runs tasks through a client, decoding answers within Limits.
type Runner struct {
	Client *api.Client
	Limits wire.Limits
	// Tally, when set, counts the tasks of every Run: queued and done.
	Tally *Tally
}

// Tally counts the requests of a build across every Run, and reports each
// change to Report (when set): total grows as stages queue their tasks.
// It observes and never changes a result.
type Tally struct {
	done, total atomic.Int64
	Report      func(done, total int64)
}

func (t *Tally) add(done, queued int64) {
	if t == nil {
		return
	}
	d, n := t.done.Add(done), t.total.Add(queued)
	if t.Report != nil {
		t.Report(d, n)
	}
}

// Failure is a task that failed after its retries.
type Failure struct {
	Task Task
	Err  error
}

// Run executes tasks with at most workers in flight (at most the client's
// concurrency; ≤ 0: that) and returns those that failed; the others are
// committed.
func (r Runner) Run(ctx context.Context, tasks []Task, workers int) []Failure {
	if workers <= 0 {
		workers = r.Client.Concurrency()
	}
	var (
		mu     sync.Mutex
		failed []Failure
		wg     sync.WaitGroup
	)
	next := make(chan Task)
	r.Tally.add(0, int64(len(tasks)))
	for range min(workers, r.Client.Concurrency(), len(tasks)) {
		wg.Go(func() {
			for t := range next {
				if err := r.run(ctx, t); err != nil {
					mu.Lock()
					failed = append(failed, Failure{t, err})
					mu.Unlock()
				}
				r.Tally.add(1, 0)
			}
		})
	}
	for _, t := range tasks {
		next <- t
	}
	close(next)
	wg.Wait()
	return failed
}

// run reads one task into a fresh batch and commits it.
func (r Runner) run(ctx context.Context, t Task) error {
	var (
		b   Batch
		err error
	)
	open := func() Batch { b = t.Open(); return b }
	switch {
	case t.Raw && t.Remote:
		err = r.remote(ctx, t, open)
	case t.Raw:
		form := url.Values{"query": {t.Query}, "time": {unix(t.To)}}
		err = r.matrix(ctx, "/api/v1/query", form, t, open)
	default:
		form := url.Values{"query": {t.Query}, "start": {unix(t.From)}, "end": {unix(t.To)},
			"step": {strconv.FormatFloat(t.Step.Seconds(), 'f', -1, 64)}}
		err = r.matrix(ctx, "/api/v1/query_range", form, t, open)
	}
	if err == nil {
		b.Commit()
	}
	return err
}

// matrix reads a JSON matrix answer into a batch.
func (r Runner) matrix(ctx context.Context, path string, form url.Values, t Task, open func() Batch) error {
	return r.Client.PostForm(ctx, path, form, t.Query, func(_ string, body io.Reader) error {
		p := newPoints(open(), t)
		_, err := wire.DecodeMatrix(body, r.Limits, p.series)
		p.end()
		return err
	})
}

// points routes a JSON answer's series to a batch's targets: a range
// point stands for a step; a raw sample is weighed (see Task.Cap); a
// sink takes the samples as they come.
type points struct {
	b      Batch
	step   float64
	w      *weigher // raw reads
	wPoint wire.PointFunc
	sink   wire.SampleSink // the current series', ended at the next
	sinkF  wire.PointFunc
	one    [1]wire.Sample
}

func newPoints(b Batch, t Task) *points {
	p := &points{b: b, step: t.Step.Seconds()}
	if t.Raw {
		p.w = &weigher{cap: capOf(t).Seconds()}
		p.wPoint = p.w.point
	}
	p.sinkF = p.sinkPoint
	return p
}

func capOf(t Task) time.Duration {
	if t.Cap > 0 {
		return t.Cap
	}
	return t.Step
}

func (p *points) series(l wire.Labels) wire.PointFunc {
	p.end()
	tg := p.b.Series(l)
	switch {
	case tg.Acc.set() && p.w != nil:
		p.w.start(tg.Acc)
		return p.wPoint
	case tg.Acc.set():
		// A query_range point at t stands for the step before it.
		acc, dt := tg.Acc, p.step
		if acc.Check != nil {
			return func(t, v float64) {
				if acc.Check.Ok(v) {
					acc.AddAt(t-dt, v, dt)
				}
			}
		}
		return func(t, v float64) { acc.AddAt(t-dt, v, dt) }
	case tg.Sink != nil:
		p.sink = tg.Sink
		return p.sinkF
	}
	return nil
}

func (p *points) sinkPoint(t, v float64) {
	p.one[0] = wire.Sample{T: int64(math.Round(t * 1000)), V: v}
	p.sink.Samples(p.one[:])
}

// end ends the current series.
func (p *points) end() {
	if p.w != nil {
		p.w.End()
	}
	if p.sink != nil {
		p.sink.End()
		p.sink = nil
	}
}

// errUnsupportedRead says the server did not answer with streamed chunks.
var errUnsupportedRead = errors.New("remote read: server did not answer with streamed XOR chunks")

// remote reads a raw task's samples in (From, To] by remote read, in one
// request however long the span: Prometheus looks each series up once
// and re-encodes only the chunks cut by the span's ends. Each series'
// samples are weighed as a raw read weighs them (see Task.Cap), so one
// request over the whole window gives each series one accumulator.
func (r Runner) remote(ctx context.Context, t Task, open func() Batch) error {
	q := wire.ChunkedRead{StartMs: t.From.UnixMilli() + 1, EndMs: t.To.UnixMilli(), Ends: t.Ends, Keep: t.Keep, Limits: r.Limits}
	return r.postRemoteRead(ctx, q, append([][]wire.Matcher{t.Matchers}, t.Also...), t.Query, func(body io.Reader) error {
		return ReadChunked(body, q, capOf(t).Seconds(), open())
	})
}

// ReadChunked hands a streamed remote-read answer's series to b, weighing
// the samples of an Acc target as a raw read does (each standing for the
// time to the next, at most capSec seconds; see Task.Cap). It does not
// commit b.
func ReadChunked(body io.Reader, q wire.ChunkedRead, capSec float64, b Batch) error {
	w := &weigher{cap: capSec}
	return wire.DecodeChunkedRead(body, q, func(l wire.Labels) wire.SampleSink {
		tg := b.Series(l)
		switch {
		case tg.Acc.set():
			w.start(tg.Acc)
			return w
		case tg.Sink != nil:
			return tg.Sink
		}
		return nil
	})
}

func (r Runner) postRemoteRead(ctx context.Context, q wire.ChunkedRead, ms [][]wire.Matcher, query string, read func(io.Reader) error) error {
	body := wire.ReadRequest(q.StartMs, q.EndMs, ms...)
	return r.Client.PostRemoteRead(ctx, body, wire.StreamedChunksType, wire.RemoteReadVersion, query,
		func(contentType string, rd io.Reader) error {
			if !strings.HasPrefix(contentType, "application/x-streamed-protobuf") {
				return fmt.Errorf("%w (content type %q)", errUnsupportedRead, contentType)
			}
			return read(rd)
		})
}

// RemoteReadWorks tells whether the server answers remote read with
// streamed XOR chunks, by reading ms over [startMs, endMs]. Prometheus
// does (since 2.13); a server that answers 404/405, only SAMPLES, or
// anything else does not.
func (r Runner) RemoteReadWorks(ctx context.Context, startMs, endMs int64, ms []wire.Matcher) bool {
	q := wire.ChunkedRead{StartMs: startMs, EndMs: endMs, Limits: r.Limits}
	return r.postRemoteRead(ctx, q, [][]wire.Matcher{ms}, "remote read probe", func(body io.Reader) error {
		return wire.DecodeChunkedRead(body, q, func(wire.Labels) wire.SampleSink { return nil })
	}) == nil
}

// Series lists the label sets of the series matching any of matchers
// between start and end (/api/v1/series).
func (r Runner) Series(ctx context.Context, start, end time.Time, matchers []string) ([]wire.Labels, error) {
	form := url.Values{"match[]": matchers, "start": {unix(start)}, "end": {unix(end)}}
	var sets []wire.Labels
	err := r.Client.PostForm(ctx, "/api/v1/series", form, strings.Join(matchers, " or "), func(_ string, body io.Reader) error {
		sets = sets[:0]
		_, err := wire.DecodeSeries(body, r.Limits, func(l wire.Labels) { sets = append(sets, append(wire.Labels(nil), l...)) })
		return err
	})
	return sets, err
}

func unix(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', -1, 64)
}
