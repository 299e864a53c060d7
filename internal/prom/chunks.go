package prom

import "math"

// seriesDecoder hands one remote-read series' samples, chunk by chunk, to
// the series' PointFunc: those in [startMs, endMs], in time order, each
// timestamp once, NaNs (stale markers) left out. With ends it hands on
// only the first and the last of them, decoding as few chunks as it can.
type seriesDecoder struct {
	startMs, endMs int64
	ends           bool
	add            PointFunc
	sink           sampleSink // instead of add: the samples a chunk at a time
	lastT          int64
	xs             []xorSample // one chunk's samples, reused
	// With ends: the series' chunks, their data copied into arena (a
	// frame's buffer is reused for the next one).
	held  []heldChunk
	arena []byte
}

type heldChunk struct {
	minT, maxT int64
	off, end   int // data in arena
}

func (s *seriesDecoder) start(add PointFunc, sink sampleSink) {
	s.add, s.sink, s.lastT = add, sink, math.MinInt64
	s.held, s.arena = s.held[:0], s.arena[:0]
}

func (s *seriesDecoder) chunk(c xorChunk) error {
	if s.sink != nil {
		return s.sinkChunk(c)
	}
	if s.add == nil {
		return nil
	}
	if s.ends {
		off := len(s.arena)
		s.arena = append(s.arena, c.data...)
		s.held = append(s.held, heldChunk{c.minT, c.maxT, off, len(s.arena)})
		return nil
	}
	var err error
	s.xs, err = appendXOR(s.xs[:0], c.data)
	// The samples before a fault are handed on, as they were read; the
	// error then fails the request.
	for _, x := range s.xs {
		if x.t < s.startMs || x.t > s.endMs || x.t <= s.lastT {
			continue
		}
		s.lastT = x.t
		if x.v == x.v { // not NaN
			s.add(float64(x.t)/1000, x.v)
		}
	}
	return err
}

// sinkChunk hands a chunk's samples to the sink in one call: those
// chunk would hand to add, compacted in place.
func (s *seriesDecoder) sinkChunk(c xorChunk) error {
	var err error
	s.xs, err = appendXOR(s.xs[:0], c.data)
	kept, lastT := s.xs[:0], s.lastT
	for _, x := range s.xs {
		if x.t < s.startMs || x.t > s.endMs || x.t <= lastT {
			continue
		}
		lastT = x.t
		if x.v == x.v { // not NaN
			kept = append(kept, x)
		}
	}
	s.lastT = lastT
	s.sink.samples(kept)
	return err
}

// finish ends the current series: with ends, its first and last samples
// are found and handed on now.
func (s *seriesDecoder) finish() error {
	if s.sink != nil {
		s.sink.end()
		s.sink = nil
	}
	if !s.ends || s.add == nil || len(s.held) == 0 {
		return nil
	}
	first, ok, err := s.edge(true, math.MinInt64)
	if err != nil || !ok {
		return err
	}
	s.add(float64(first.t)/1000, first.v)
	last, ok, err := s.edge(false, first.t)
	if err == nil && ok {
		s.add(float64(last.t)/1000, last.v)
	}
	s.held = s.held[:0]
	return err
}

// edge finds the series' first (or last) sample in range that is no NaN
// and comes after floor, decoding chunks from the front (or the back)
// until no chunk left can hold an earlier (or later) one. Chunks are in
// order of their start; overlapping ones are all looked at.
func (s *seriesDecoder) edge(first bool, floor int64) (xorSample, bool, error) {
	var (
		best  xorSample
		found bool
	)
	n := len(s.held)
	for k := range n {
		i := k
		if !first {
			i = n - 1 - k
		}
		h := s.held[i]
		if found && (first && h.minT >= best.t || !first && h.maxT <= best.t) {
			if first {
				break // later chunks start later still
			}
			continue // an earlier chunk may overlap and end later
		}
		var err error
		if s.xs, err = appendXOR(s.xs[:0], s.arena[h.off:h.end]); err != nil {
			return best, false, err
		}
		for _, x := range s.xs {
			if x.t < s.startMs || x.t > s.endMs || x.t <= floor || x.v != x.v {
				continue
			}
			if !found || first && x.t < best.t || !first && x.t > best.t {
				best, found = x, true
			}
		}
	}
	return best, found, nil
}
