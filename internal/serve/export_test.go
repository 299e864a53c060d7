package serve

import (
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// WindowSpan is the ring's merged usage over w, as a rebuild reads it.
func WindowSpan(s *Service, w cluster.Window) *rolling.Span {
	s.ringMu.RLock()
	defer s.ringMu.RUnlock()
	return s.ring.Window(w)
}

