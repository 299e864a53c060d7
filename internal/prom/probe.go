package prom

import (
	"context"
	"fmt"
	"sort"

	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// probeSteps is how many steps the scrape-interval probe looks back.
const probeSteps = 12

// readMode picks how to read the series that sel selects: with
// Options.Read "auto", raw when their samples are no denser than about one
// per step (the raw answer is then no bigger than query_range's, and
// Prometheus evaluates nothing), range otherwise or when the probe finds
// nothing. Prometheus' cost of either is mostly writing the answer, so raw
// samples scraped many times a step would cost more than query_range.
//
// Where raw is right, auto reads it by remote read (ReadRemote) when the
// server answers a remote-read probe with streamed XOR chunks (Prometheus
// ≥ 2.13; Thanos, Mimir or VictoriaMetrics may not), and over the JSON API
// otherwise.
func (r *reader) readMode(ctx context.Context, sel string) string {
	if r.opts.Read != ReadAuto {
		return r.opts.Read
	}
	if m := r.densityMode(ctx, sel); m != ReadRaw || !r.remoteOK() {
		return m
	}
	return ReadRemote
}

// remoteReadProbe reads kube_node_info over the window's last step by
// remote read: true when the server answers with streamed chunks.
func (r *reader) remoteReadProbe(ctx context.Context) bool {
	end := r.w.End.UnixMilli()
	return r.q.RemoteReadWorks(ctx, end-r.opts.Step.Milliseconds(), end,
		[]wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: "kube_node_info"}})
}

// densityMode is raw when the samples sel selects come no more than about
// once a step, range otherwise.
func (r *reader) densityMode(ctx context.Context, sel string) string {
	q := fmt.Sprintf("count_over_time(%s[%s])", sel, query.Lookback(probeSteps*r.opts.Step))
	p := &probe{}
	// A failed probe is no failed read: query_range is always right.
	failed := r.q.Run(ctx, []query.Task{{Query: q, From: r.w.End, To: r.w.End, Step: r.opts.Step,
		Open: func() query.Batch { p.counts = p.counts[:0]; return p }}}, 0)
	if len(failed) > 0 || len(p.counts) == 0 {
		return ReadRange
	}
	sort.Float64s(p.counts)
	if p.counts[len(p.counts)/2] <= 1.5*probeSteps {
		return ReadRaw
	}
	return ReadRange
}

// probe collects the sample count of each series.
type probe struct{ counts []float64 }

func (p *probe) Series(wire.Labels) query.Target { return query.Target{Sink: p} }

func (p *probe) Samples(xs []wire.Sample) {
	for _, x := range xs {
		p.counts = append(p.counts, x.V)
	}
}

func (p *probe) End()    {}
func (p *probe) Commit() {}
