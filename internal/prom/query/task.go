package query

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// MaxPoints is Prometheus' limit on points per series in one query_range
// answer.
const MaxPoints = 11000

// Task is one request. By default a query_range request: evaluation
// points From, From+Step, …, up to and including To.
type Task struct {
	Query    string
	From, To time.Time
	Step     time.Duration
	Open     func() Batch
	// Raw makes the task an instant query at To of a query that selects
	// a range vector (/api/v1/query): Prometheus answers the raw samples,
	// with no per-step evaluation. A series whose Target is an Acc then
	// gets each sample weighted by the time to the series' next sample,
	// at most Cap (default Step); its last sample by the gap before it,
	// at most Cap, or Cap when it is alone.
	Raw bool
	Cap time.Duration
	// Remote reads a Raw task's samples in (From, To] by remote read
	// (streamed XOR chunks) of the series Matchers select, instead of by
	// Query, which then only names the task in errors. One request reads
	// the whole span, however long.
	Remote   bool
	Matchers []wire.Matcher
	// Also, for a Remote task, are further selectors read in the same
	// request (one query each), whose series go to the same batch: each
	// must select series none of the others does.
	Also [][]wire.Matcher
	// Ends, for a Remote task, hands each series only its first and last
	// sample in (From, To] (NaNs left out): all that a Batch keeping a
	// series' first sighting and last value needs, with most chunks left
	// undecoded.
	Ends bool
	// Keep, for a Remote task, names the labels the batch reads: the
	// others are not decoded. Nil: all.
	Keep func(name []byte) bool
	// Metric and Nodes say what a task reads (a metric; the nodes of a
	// sharded read), for saying what a failed one left out.
	Metric string
	Nodes  []string
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

// Shard is a group of nodes that one request reads.
type Shard struct {
	Nodes []string
	// Regex is the bare regular expression that matches exactly them
	// (what a remote-read matcher takes).
	Regex string
}

// Quoted is the shard's regular expression as a PromQL string.
func (s Shard) Quoted() string { return strconv.Quote(s.Regex) }

// Shards sorts names and cuts them into groups of size.
func Shards(names []string, size int) []Shard {
	names = slices.Sorted(slices.Values(names))
	var out []Shard
	for i := 0; i < len(names); i += size {
		group := names[i:min(i+size, len(names))]
		out = append(out, Shard{Nodes: group, Regex: Alternatives(group)})
	}
	return out
}

// Alternatives is a regular expression matching exactly the names.
func Alternatives(names []string) string {
	quoted := make([]string, len(names))
	for k, n := range names {
		quoted[k] = regexpQuote(n)
	}
	return strings.Join(quoted, "|")
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Lookback is a range selector length just under step, so that a sample
// exactly one step before an evaluation point is not read twice (ranges
// are closed on the left before Prometheus 3).
func Lookback(step time.Duration) string {
	return strconv.FormatInt(step.Milliseconds()-1, 10) + "ms"
}

// RawRange is the range selector of a raw task over (from, to]: the span
// of evaluation points From…To of query_range reads the samples in
// (From−Step, To], so the task for it is an instant query at To of a
// range of To−From+Step−1ms (ranges are closed on the left before
// Prometheus 3), from = From−Step.
func RawRange(from, to time.Time) string {
	return "[" + strconv.FormatInt(to.Sub(from).Milliseconds()-1, 10) + "ms]"
}

// WholeWindow turns raw tasks, one a day, into one remote-read task over
// their union: days are contiguous ((From, To] of one ends where the next
// begins), so the first day's batch, with its weighting cap and its seed,
// reads on to the last day's end and each series gets one accumulator.
// A sample is weighed by the time to the series' next one even across a
// day's end, where a day read alone weighs its last sample by the gap
// before it: with one sample a step the two are equal, and the result
// matches the raw one to float rounding (the sums are taken in another
// order).
func WholeWindow(days []Task, query string, ms []wire.Matcher, keep func([]byte) bool) []Task {
	if len(days) == 0 {
		return nil
	}
	first := days[0]
	return []Task{{Query: query + " (remote read)", From: first.From, To: days[len(days)-1].To, Step: first.Step,
		Raw: true, Cap: first.Cap, Open: first.Open, Remote: true, Matchers: ms, Keep: keep, Metric: first.Metric, Nodes: first.Nodes}}
}
