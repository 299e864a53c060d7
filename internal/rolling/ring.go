package rolling

import (
	"fmt"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Ring keeps usage merged into fixed segments aligned to multiples of
// Segment since the Unix epoch, so that a rolling window is the merge of
// its segments. The zero value is not usable: create it with NewRing.
// It is not safe for concurrent use.
type Ring struct {
	segment time.Duration
	segs    map[int64]*Span // segment start (Unix ns) → merged usage
	// open is the segment spans were last added to; the segments before
	// it are finished and compacted (Span.Compact) when it moves on.
	open int64
}

// NewRing returns an empty ring of segments of the given length (at least
// a minute).
func NewRing(segment time.Duration) (*Ring, error) {
	if segment < time.Minute {
		return nil, fmt.Errorf("rolling: segment %s is shorter than 1m", segment)
	}
	return &Ring{segment: segment, segs: map[int64]*Span{}}, nil
}

// Segment is the ring's segment length.
func (r *Ring) Segment() time.Duration { return r.segment }

// Align rounds t down to the start of its segment.
func (r *Ring) Align(t time.Time) time.Time { return t.Truncate(r.segment) }

// Add merges s into the segment its window starts in. A span must not
// cross a segment boundary: the caller reads intervals that divide the
// segment, aligned to it.
func (r *Ring) Add(s *Span) error {
	start := r.Align(s.Window.Start)
	if s.Window.End.After(start.Add(r.segment)) {
		return fmt.Errorf("rolling: span %s crosses the segment boundary at %s", s.Window, start.Add(r.segment).UTC().Format(time.RFC3339))
	}
	k := start.UnixNano()
	if k > r.open {
		r.finish(k)
	}
	seg := r.segs[k]
	if seg == nil {
		seg = &Span{Pods: map[string]*PodUsage{}}
		r.segs[k] = seg
	}
	seg.add(s)
	return nil
}

// finish compacts the segments before k that spans went to since the
// last call (intervals arrive in order: those segments are complete) and
// makes k the open one. A span arriving late for a finished segment is
// still merged in; the segment grows again as before.
func (r *Ring) finish(k int64) {
	for sk, seg := range r.segs {
		if sk >= r.open && sk < k {
			seg.Compact()
		}
	}
	r.open = k
}

// Window merges the segments that start in w (aligned by the caller) into
// one span whose window is w, compacted (it is kept as is until the next
// window replaces it).
func (r *Ring) Window(w cluster.Window) *Span {
	out := &Span{Window: w, Pods: map[string]*PodUsage{}}
	for _, k := range r.keys() {
		t := time.Unix(0, k)
		if !t.Before(w.Start) && t.Before(w.End) {
			seg := *r.segs[k]
			seg.Window = w // keep w as the merged window
			out.add(&seg)
		}
	}
	out.Window = w
	out.Compact()
	return out
}

// Evict drops the segments that end at or before t.
func (r *Ring) Evict(t time.Time) {
	for k := range r.segs {
		if !time.Unix(0, k).Add(r.segment).After(t) {
			delete(r.segs, k)
		}
	}
}

// Len is the number of segments held.
func (r *Ring) Len() int { return len(r.segs) }

func (r *Ring) keys() []int64 {
	ks := make([]int64, 0, len(r.segs))
	for k := range r.segs {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}
