package exporter

import (
	"bytes"
	"io"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Exposition is one frame's metrics as a scrape writes them: gathered once
// when the frame is published and encoded once per exposition format, so
// that a scrape of the domain metrics costs a copy, not a rebuild of
// thousands of series (issue 32: /metrics p99 while API clients load the
// service). It is never changed once built but for its encodings' cache.
type Exposition struct {
	families []*dto.MetricFamily
	err      error

	mu  sync.Mutex
	enc map[expfmt.Format][]byte
}

// maxEncodings bounds the formats an Exposition keeps encoded (text and
// OpenMetrics, each with an escaping scheme: a scraper asks for one).
const maxEncodings = 4

// NewExposition gathers g (a registry holding a Collector, with the
// service's constant labels) once.
func NewExposition(g prometheus.Gatherer) *Exposition {
	fams, err := g.Gather()
	return &Exposition{families: fams, err: err, enc: map[expfmt.Format][]byte{}}
}

// Encoded is the families in format, without OpenMetrics' closing
// "# EOF" (other families follow them on /metrics). A nil Exposition (no
// frame published yet) has none. The bytes are shared: never written to.
func (x *Exposition) Encoded(format expfmt.Format) ([]byte, error) {
	if x == nil {
		return nil, nil
	}
	if x.err != nil {
		return nil, x.err
	}
	x.mu.Lock() // concurrent first scrapes of one format encode it once
	defer x.mu.Unlock()
	if b, ok := x.enc[format]; ok {
		return b, nil
	}
	var buf bytes.Buffer
	if err := x.Write(&buf, format, nil); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(x.enc) < maxEncodings {
		x.enc[format] = b
	}
	return b, nil
}

// Write encodes the families whose names keep accepts (nil: all) to w in
// format, without the closing "# EOF".
func (x *Exposition) Write(w io.Writer, format expfmt.Format, keep func(name string) bool) error {
	if x == nil {
		return nil
	}
	if x.err != nil {
		return x.err
	}
	enc := expfmt.NewEncoder(w, format)
	for _, mf := range x.families {
		if keep != nil && !keep(mf.GetName()) {
			continue
		}
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}
