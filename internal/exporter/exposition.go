package exporter

import (
	"bytes"
	"io"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Exposition is one frame's metrics as a scrape writes them: encoded once
// per exposition format and kept as bytes, so that a scrape of the domain
// metrics costs a copy, not a rebuild of thousands of series (issue 32:
// /metrics p99 while API clients load the service). Only the bytes are
// kept: the gathered series (protobuf structs, about 0.9 KB a series) are
// garbage once encoded, so pod metrics (three series per pod) hold their
// text, not three times that. It is never changed once built but for its
// encodings' cache.
type Exposition struct {
	g prometheus.Gatherer

	mu  sync.Mutex
	enc map[expfmt.Format][]byte
}

// maxEncodings bounds the formats an Exposition keeps (text and
// OpenMetrics, with an escaping scheme each: a scraper asks for one).
const maxEncodings = 4

// NewExposition is the metrics g gathers (a registry holding a Collector
// with the frame just published, and the service's constant labels),
// encoded at once in the formats of warm (the last exposition's: a scraper
// keeps asking for the same one, so its first scrape after a cycle does
// not encode) and in any other on first use.
func NewExposition(g prometheus.Gatherer, warm *Exposition) *Exposition {
	x := &Exposition{g: g, enc: map[expfmt.Format][]byte{}}
	for _, f := range warm.formats() {
		x.Encoded(f) // an error is the scrape's to report
	}
	return x
}

func (x *Exposition) formats() []expfmt.Format {
	if x == nil {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	fs := make([]expfmt.Format, 0, len(x.enc))
	for f := range x.enc {
		fs = append(fs, f)
	}
	return fs
}

// Encoded is the metrics in format, without OpenMetrics' closing "# EOF"
// (other families follow them on /metrics). A nil Exposition (no frame
// published yet) has none. The bytes are shared: never written to.
func (x *Exposition) Encoded(format expfmt.Format) ([]byte, error) {
	if x == nil {
		return nil, nil
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

// Write gathers the metrics and encodes the families whose names keep
// accepts (nil: all) to w in format, without the closing "# EOF".
func (x *Exposition) Write(w io.Writer, format expfmt.Format, keep func(name string) bool) error {
	if x == nil {
		return nil
	}
	fams, err := x.g.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, format)
	for _, mf := range fams {
		if keep != nil && !keep(mf.GetName()) {
			continue
		}
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}
