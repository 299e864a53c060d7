package wire

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// PointFunc receives one point of a series: Unix seconds and value.
type PointFunc func(t, v float64)

// APIError is an answer whose status is "error": Prometheus rejected the
// query.
type APIError struct{ Type, Message string }

func (e *APIError) Error() string { return e.Type + ": " + e.Message }

// response is what decoding an API answer leaves besides the data.
type response struct {
	status, errorType, errMsg string
	warnings                  []string
}

// jsonDecoder reads one API answer.
type jsonDecoder struct {
	l      *lexer
	lim    Limits
	names  *labelCache
	series int
}

func newJSONDecoder(r io.Reader, lim Limits) *jsonDecoder {
	return &jsonDecoder{l: newLexer(r, lim.MaxLabelBytes), lim: lim, names: newLabelCache()}
}

// DecodeMatrix reads a query_range (or range-vector query) answer as a
// stream, handing each point to its series' PointFunc as it is read:
// nothing but the current series' labels is held. onSeries gets each
// series' labels (valid until it returns; see Labels) and returns where
// its points go, nil to skip them. NaN points are gaps and not handed on.
// It returns the answer's warnings.
func DecodeMatrix(r io.Reader, lim Limits, onSeries func(Labels) PointFunc) ([]string, error) {
	d := newJSONDecoder(r, lim)
	defer d.names.release()
	return d.decode(func() error { return d.data(onSeries) })
}

// DecodeSeries reads a /api/v1/series answer: a list of label sets, each
// handed to each (valid until it returns).
func DecodeSeries(r io.Reader, lim Limits, each func(Labels)) ([]string, error) {
	d := newJSONDecoder(r, lim)
	defer d.names.release()
	return d.decode(func() error {
		return d.l.array(func() error {
			ls, err := d.labels()
			if err == nil {
				each(ls)
			}
			return err
		})
	})
}

func (d *jsonDecoder) decode(data func() error) ([]string, error) {
	var resp response
	err := d.l.object(func(key string) error { return d.topLevel(key, &resp, data) })
	var lim *LimitError
	switch {
	case errors.As(err, &lim):
		return resp.warnings, err
	case err != nil:
		return resp.warnings, fmt.Errorf("decoding response: %w", err)
	case resp.status == "error":
		return resp.warnings, &APIError{Type: resp.errorType, Message: resp.errMsg}
	case resp.status != "success":
		return resp.warnings, fmt.Errorf("decoding response: status %q, want \"success\"", resp.status)
	}
	return resp.warnings, nil
}

func (d *jsonDecoder) topLevel(key string, resp *response, data func() error) error {
	str := func(s *string) error {
		v, err := d.l.string()
		*s = v
		return err
	}
	switch key {
	case "status":
		return str(&resp.status)
	case "errorType":
		return str(&resp.errorType)
	case "error":
		return str(&resp.errMsg)
	case "data":
		return data()
	case "warnings", "infos":
		return d.l.array(func() error {
			var w string
			err := str(&w)
			resp.warnings = append(resp.warnings, w)
			return err
		})
	}
	return d.l.skip()
}

func (d *jsonDecoder) data(onSeries func(Labels) PointFunc) error {
	return d.l.object(func(key string) error {
		switch key {
		case "resultType":
			t, err := d.l.string()
			if err == nil && t != "matrix" {
				err = fmt.Errorf("result type %q, want matrix", t)
			}
			return err
		case "result":
			return d.l.array(func() error { return d.oneSeries(onSeries) })
		}
		return d.l.skip()
	})
}

func (d *jsonDecoder) oneSeries(onSeries func(Labels) PointFunc) error {
	var add PointFunc
	seen := false
	return d.l.object(func(key string) error {
		switch key {
		case "metric":
			ls, err := d.labels()
			if err != nil {
				return err
			}
			add, seen = onSeries(ls), true
			return nil
		case "values":
			if !seen {
				return errors.New("series values before its metric labels")
			}
			return d.l.array(func() error { return d.point(add) })
		}
		return d.l.skip()
	})
}

// point reads [t, "v"]; a nil add reads and drops it.
func (d *jsonDecoder) point(add PointFunc) error {
	l := d.l
	if err := l.delim('['); err != nil {
		return err
	}
	t, err := l.number()
	if err != nil {
		return fmt.Errorf("point timestamp: %w", err)
	}
	if err := l.delim(','); err != nil {
		return err
	}
	s, err := l.stringBytes()
	if err != nil {
		return err
	}
	v, perr := strconv.ParseFloat(string(s), 64)
	if perr != nil {
		return fmt.Errorf("point value %q: %w", s, perr)
	}
	if err := l.delim(']'); err != nil {
		return err
	}
	if add != nil && !math.IsNaN(v) {
		add(t, v)
	}
	return nil
}

// labels reads one label object into the cache's list, counting it as a
// series against the limit.
func (d *jsonDecoder) labels() (Labels, error) {
	if d.series++; d.lim.tooMany(d.series) {
		return nil, d.lim.seriesError()
	}
	c := d.names
	c.next()
	err := d.l.object(func(key string) error {
		v, err := d.l.stringBytes()
		if err == nil {
			c.cur = append(c.cur, Label{key, c.get(len(c.cur), true, v)})
		}
		return err
	})
	return c.cur, err
}
