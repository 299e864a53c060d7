package prom

import (
	"context"
	"fmt"
	"sort"
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
func (b *builder) readMode(ctx context.Context, sel string) string {
	if b.opts.Read != ReadAuto {
		return b.opts.Read
	}
	if m := b.densityMode(ctx, sel); m != ReadRaw || !b.remoteReadWorks(ctx) {
		return m
	}
	return ReadRemote
}

// remoteReadWorks probes remote read once per build: kube_node_info over
// the window's last step.
func (b *builder) remoteReadWorks(ctx context.Context) bool {
	b.probeMu.Lock()
	defer b.probeMu.Unlock()
	if b.remoteOK == nil {
		end := b.w.End.UnixMilli()
		ok := b.c.RemoteReadWorks(ctx, end-b.opts.Step.Milliseconds(), end,
			[]Matcher{{MatchEqual, "__name__", "kube_node_info"}})
		b.remoteOK = &ok
	}
	return *b.remoteOK
}

// densityMode is raw when the samples sel selects come no more than about
// once a step, range otherwise.
func (b *builder) densityMode(ctx context.Context, sel string) string {
	q := fmt.Sprintf("count_over_time(%s[%s])", sel, lookback(probeSteps*b.opts.Step))
	p := &probe{}
	// A failed probe is no failed read: query_range is always right.
	errs := b.c.Run(ctx, []Task{{Query: q, From: b.w.End, To: b.w.End, Step: b.opts.Step, Open: func() Batch { p.counts = p.counts[:0]; return p }}})
	if len(errs) > 0 || len(p.counts) == 0 {
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

func (p *probe) Series(map[string]string) PointFunc {
	return func(_, v float64) { p.counts = append(p.counts, v) }
}

func (p *probe) Commit() {}
