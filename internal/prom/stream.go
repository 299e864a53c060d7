package prom

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// PointFunc receives one point of a series: Unix seconds and value.
type PointFunc func(t, v float64)

// SeriesFunc is called once per series of a response with its labels and
// returns where the series' points go; nil skips the series.
type SeriesFunc func(labels map[string]string) PointFunc

// response is what decoding an API answer leaves besides the points.
type response struct {
	status, errorType, errMsg string
	warnings                  []string
}

// decodeMatrix reads a query_range answer as a stream, handing each point
// to its series' PointFunc as it is read: nothing but the current series'
// labels is held in memory.
func decodeMatrix(r io.Reader, onSeries SeriesFunc) ([]string, error) {
	return decodeAPI(r, func(l *lexer) error { return decodeData(l, onSeries) })
}

// decodeSeries reads a /api/v1/series answer: a list of label sets.
func decodeSeries(r io.Reader, onSeries func(map[string]string)) ([]string, error) {
	return decodeAPI(r, func(l *lexer) error {
		return l.array(func() error {
			labels, err := decodeLabels(l)
			if err == nil {
				onSeries(labels)
			}
			return err
		})
	})
}

func decodeAPI(r io.Reader, data func(*lexer) error) ([]string, error) {
	l := newLexer(r)
	var resp response
	str := func(s *string) error {
		v, err := l.string()
		*s = v
		return err
	}
	err := l.object(func(key string) error {
		switch key {
		case "status":
			return str(&resp.status)
		case "errorType":
			return str(&resp.errorType)
		case "error":
			return str(&resp.errMsg)
		case "data":
			return data(l)
		case "warnings", "infos":
			return l.array(func() error {
				var w string
				err := str(&w)
				resp.warnings = append(resp.warnings, w)
				return err
			})
		}
		return l.skip()
	})
	switch {
	case err != nil:
		return resp.warnings, fmt.Errorf("decoding response: %w", err)
	case resp.status == "error":
		return resp.warnings, &apiError{kind: Bad, msg: resp.errorType + ": " + resp.errMsg}
	case resp.status != "success":
		return resp.warnings, fmt.Errorf("decoding response: status %q, want \"success\"", resp.status)
	}
	return resp.warnings, nil
}

func decodeData(l *lexer, onSeries SeriesFunc) error {
	return l.object(func(key string) error {
		switch key {
		case "resultType":
			t, err := l.string()
			if err == nil && t != "matrix" {
				err = fmt.Errorf("result type %q, want matrix", t)
			}
			return err
		case "result":
			return l.array(func() error { return decodeOneSeries(l, onSeries) })
		}
		return l.skip()
	})
}

func decodeOneSeries(l *lexer, onSeries SeriesFunc) error {
	var add PointFunc
	seen := false
	return l.object(func(key string) error {
		switch key {
		case "metric":
			labels, err := decodeLabels(l)
			if err != nil {
				return err
			}
			add, seen = onSeries(labels), true
			return nil
		case "values":
			if !seen {
				return errors.New("series values before its metric labels")
			}
			return l.array(func() error { return decodePoint(l, add) })
		}
		return l.skip()
	})
}

// decodePoint reads [t, "v"]; a nil add reads and drops it.
func decodePoint(l *lexer, add PointFunc) error {
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

func decodeLabels(l *lexer) (map[string]string, error) {
	labels := map[string]string{}
	err := l.object(func(key string) error {
		v, err := l.string()
		labels[key] = v
		return err
	})
	return labels, err
}
