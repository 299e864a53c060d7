package wire

import "math"

// seriesDecoder hands one remote-read series' samples, chunk by chunk, to
// the series' sink: those in [startMs, endMs], in time order, each
// timestamp once, NaNs (stale markers) left out. With ends it hands on
// only the first and the last of them, decoding as few chunks as it can.
type seriesDecoder struct {
	startMs, endMs int64
	ends           bool
	sink           SampleSink
	lastT          int64
	xs             []Sample // one chunk's samples, reused
	// With ends: the series' chunks, their data copied into arena (a
	// frame's buffer is reused for the next one).
	held  []heldChunk
	arena []byte
}

type heldChunk struct {
	minT, maxT int64
	off, end   int // data in arena
}

func (s *seriesDecoder) start(sink SampleSink) {
	s.sink, s.lastT = sink, math.MinInt64
	s.held, s.arena = s.held[:0], s.arena[:0]
}

func (s *seriesDecoder) chunk(c xorChunk) error {
	switch {
	case s.sink == nil:
		return nil
	case s.ends:
		off := len(s.arena)
		s.arena = append(s.arena, c.data...)
		s.held = append(s.held, heldChunk{c.minT, c.maxT, off, len(s.arena)})
		return nil
	}
	return s.sinkChunk(c)
}

// sinkChunk hands a chunk's samples in range, after the series' last one
// and not NaN to the sink in one call, compacted in place. The samples
// before a fault are handed on, as they were read; the error then fails
// the request.
func (s *seriesDecoder) sinkChunk(c xorChunk) error {
	var err error
	s.xs, err = AppendXOR(s.xs[:0], c.data)
	kept, lastT := s.xs[:0], s.lastT
	for _, x := range s.xs {
		if x.T < s.startMs || x.T > s.endMs || x.T <= lastT {
			continue
		}
		lastT = x.T
		if x.V == x.V { // not NaN
			kept = append(kept, x)
		}
	}
	s.lastT = lastT
	s.sink.Samples(kept)
	return err
}

// finish ends the current series: with ends, its first and last samples
// are found and handed on now.
func (s *seriesDecoder) finish() error {
	if s.sink == nil {
		return nil
	}
	sink := s.sink
	s.sink = nil
	if !s.ends || len(s.held) == 0 {
		sink.End()
		return nil
	}
	var two [2]Sample
	n, err := s.edges(&two)
	s.held = s.held[:0]
	if n > 0 {
		sink.Samples(two[:n])
	}
	sink.End()
	return err
}

// edges finds the series' first and last samples (one when they are the
// same).
func (s *seriesDecoder) edges(out *[2]Sample) (int, error) {
	first, ok, err := s.edge(true, math.MinInt64)
	if err != nil || !ok {
		return 0, err
	}
	out[0] = first
	last, ok, err := s.edge(false, first.T)
	if err != nil || !ok {
		return 1, err
	}
	out[1] = last
	return 2, nil
}

// edge finds the series' first (or last) sample in range that is no NaN
// and comes after floor, decoding chunks from the front (or the back)
// until no chunk left can hold an earlier (or later) one. Chunks are in
// order of their start; overlapping ones are all looked at.
func (s *seriesDecoder) edge(first bool, floor int64) (Sample, bool, error) {
	var (
		best  Sample
		found bool
	)
	n := len(s.held)
	for k := range n {
		i := k
		if !first {
			i = n - 1 - k
		}
		h := s.held[i]
		if found && (first && h.minT >= best.T || !first && h.maxT <= best.T) {
			if first {
				break // later chunks start later still
			}
			continue // an earlier chunk may overlap and end later
		}
		var err error
		if s.xs, err = AppendXOR(s.xs[:0], s.arena[h.off:h.end]); err != nil {
			return best, false, err
		}
		for _, x := range s.xs {
			if x.T < s.startMs || x.T > s.endMs || x.T <= floor || x.V != x.V {
				continue
			}
			if !found || first && x.T < best.T || !first && x.T > best.T {
				best, found = x, true
			}
		}
	}
	return best, found, nil
}
