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
func (b *builder) readMode(ctx context.Context, sel string) string {
	if b.opts.Read != ReadAuto {
		return b.opts.Read
	}
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
