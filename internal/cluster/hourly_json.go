package cluster

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// MarshalJSON writes the series as a JSON array of float32 values in their
// shortest form, an hour without data (NaN) as null.
func (s Series) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 2+len(s)*8)
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case v != v:
			b = append(b, "null"...)
		case math.IsInf(float64(v), 0):
			return nil, fmt.Errorf("hour %d: infinite value", i)
		default:
			b = strconv.AppendFloat(b, float64(v), 'g', -1, 32)
		}
	}
	return append(b, ']'), nil
}

// errSeries is wrapped by every malformed series.
var errSeries = errors.New("hourly series: want an array of numbers and nulls")

// UnmarshalJSON reads what MarshalJSON writes: null (no series) or an
// array of numbers and nulls (NaN). It parses by hand because a week of
// hours for ten thousand workloads is millions of numbers, and the
// standard decoder would allocate for each null.
func (s *Series) UnmarshalJSON(data []byte) error {
	p := seriesParser{b: data}
	p.space()
	if p.literal("null") {
		*s = nil
		return p.end()
	}
	out, err := p.array()
	if err != nil {
		return err
	}
	*s = out
	return p.end()
}

type seriesParser struct {
	b []byte
	i int
}

func (p *seriesParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *seriesParser) literal(lit string) bool {
	if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return true
	}
	return false
}

func (p *seriesParser) end() error {
	p.space()
	if p.i != len(p.b) {
		return fmt.Errorf("%w: trailing data at byte %d", errSeries, p.i)
	}
	return nil
}

func (p *seriesParser) array() (Series, error) {
	if !p.literal("[") {
		return nil, fmt.Errorf("%w: no '[' at byte %d", errSeries, p.i)
	}
	out := Series{}
	p.space()
	if p.literal("]") {
		return out, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		switch {
		case p.literal(","):
			p.space()
		case p.literal("]"):
			return out, nil
		default:
			return nil, fmt.Errorf("%w: want ',' or ']' at byte %d", errSeries, p.i)
		}
	}
}

func (p *seriesParser) value() (float32, error) {
	if p.literal("null") {
		return float32(math.NaN()), nil
	}
	start := p.i
	for p.i < len(p.b) && isNumberChar(p.b[p.i]) {
		p.i++
	}
	if p.i == start {
		return 0, fmt.Errorf("%w: want a number or null at byte %d", errSeries, start)
	}
	v, err := strconv.ParseFloat(string(p.b[start:p.i]), 32)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%w: bad number %q", errSeries, p.b[start:p.i])
	}
	return float32(v), nil
}

func isNumberChar(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
