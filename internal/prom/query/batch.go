package query

import (
	"github.com/gpuwise/gpuwise/internal/prom/wire"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// Batch receives one request's series. A request that fails and is
// retried gets a fresh Batch (Task.Open), so a Batch only becomes part of
// the result through Commit, called once after its whole answer was read.
type Batch interface {
	// Series starts a series with its labels (the decoder's list, valid
	// until Series returns) and says where its samples go; a zero Target
	// skips the series.
	Series(l wire.Labels) Target
	Commit()
}

// Target is where one series' samples go: into Acc, each weighed by the
// time it stands for (see Task), or as they are into Sink (counters whose
// rate needs consecutive samples, facts that keep first and last).
type Target struct {
	Acc  Acc
	Sink wire.SampleSink
}

// Acc is one series' usage accumulator, taking weighted values: a Gauge,
// or an Activity that takes values × Scale, or else Func. Timed, when
// set, also takes each value (× Scale for an Activity) with the Unix
// second the time it stands for starts at: the hour-by-hour series. It
// may be the only one set.
type Acc struct {
	Gauge    *usage.Gauge
	Activity *usage.Activity
	Scale    float64
	Func     func(v, seconds float64)
	Timed    func(t, v, seconds float64)
	// Check, when set, leaves out the samples outside its range (before
	// Scale), counting them.
	Check *Range
}

func (a Acc) set() bool {
	return a.Gauge != nil || a.Activity != nil || a.Func != nil || a.Timed != nil
}

// Add adds one value standing for seconds.
func (a Acc) Add(v, seconds float64) {
	switch {
	case a.Gauge != nil:
		a.Gauge.Add(v, seconds)
	case a.Activity != nil:
		a.Activity.Add(v*a.Scale, seconds)
	case a.Func != nil:
		a.Func(v, seconds)
	}
}

// AddAt is Add for a value whose time starts at Unix second t.
func (a Acc) AddAt(t, v, seconds float64) {
	a.Add(v, seconds)
	if a.Timed != nil {
		if a.Activity != nil {
			v *= a.Scale
		}
		a.Timed(t, v, seconds)
	}
}
