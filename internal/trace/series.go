package trace

import (
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
)

// Column names shared by the GenAI-2026 metric files; their order differs
// between files, so columns are found by name.
const (
	colValue = "value"
	colTime  = "timestamp_anon"
	colPod   = "container_ip"
)

// sample is one row of a metric file.
type sample struct {
	pod  string
	t, v float64
	line int
}

// valueCheck rejects a value that the metric cannot take.
type valueCheck func(v float64) error

// opener opens a metric file by its path: os.Open for a trace on disk,
// memory in the fuzz target (a temporary directory per execution cost
// more than the parse).
type opener func(path string) (io.ReadCloser, error)

func openFile(path string) (io.ReadCloser, error) { return os.Open(path) }

// forEachSample streams the gzip CSV at path and calls fn for every row in
// file order. Errors name the file and the line.
func forEachSample(open opener, path string, check valueCheck, fn func(s sample) error) error {
	f, err := open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer zr.Close()
	r := csv.NewReader(zr)
	r.ReuseRecord = true
	r.FieldsPerRecord = 3
	cols, err := readHeader(r)
	if err != nil {
		return fmt.Errorf("%s line 1: %w", path, err)
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			// FieldPos panics after a failed Read (no record to point
			// into), so the line comes from the ParseError only.
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return fmt.Errorf("%s line %d: %w", path, pe.Line, pe.Err)
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		s, err := parseSample(rec, cols, check)
		if err == nil {
			s.line = line
			err = fn(s)
		}
		if err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
	}
}

// columns holds the positions of value, timestamp and pod in a record.
type columns struct{ value, time, pod int }

func readHeader(r *csv.Reader) (columns, error) {
	rec, err := r.Read()
	if err != nil {
		return columns{}, fmt.Errorf("reading header: %w", err)
	}
	pos := map[string]int{}
	for i, name := range rec {
		pos[name] = i
	}
	var c columns
	var ok [3]bool
	c.value, ok[0] = pos[colValue]
	c.time, ok[1] = pos[colTime]
	c.pod, ok[2] = pos[colPod]
	if ok != [3]bool{true, true, true} {
		return columns{}, fmt.Errorf("header is %q, want the columns %s, %s and %s", rec, colValue, colTime, colPod)
	}
	return c, nil
}

func parseSample(rec []string, c columns, check valueCheck) (sample, error) {
	s := sample{pod: rec[c.pod]}
	if s.pod == "" {
		return s, fmt.Errorf("empty %s", colPod)
	}
	var err error
	if s.t, err = parseFinite(colTime, rec[c.time]); err != nil {
		return s, err
	}
	if s.v, err = parseFinite(colValue, rec[c.value]); err != nil {
		return s, err
	}
	if err := check(s.v); err != nil {
		return s, fmt.Errorf("%s %s: %w", colValue, rec[c.value], err)
	}
	return s, nil
}

func parseFinite(name, text string) (float64, error) {
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %q is not a finite number", name, text)
	}
	return v, nil
}

// span is one pod's extent in a metric file.
type span struct {
	first, last float64
	samples     int
}

// series is what the first pass learns about a metric file.
type series struct {
	pods       map[string]*span
	order      []string // pods in order of first appearance
	start, end float64  // first and last timestamp in the file
	// step is the median gap between a pod's consecutive samples.
	step    float64
	samples int
}

// scanSeries makes the first pass over a metric file: it checks every row
// and each pod's time order, and finds the median step. A file in which no
// pod has two samples takes fallbackStep, or fails when that is 0.
func scanSeries(open opener, path string, check valueCheck, fallbackStep float64) (*series, error) {
	s := &series{pods: map[string]*span{}, start: math.Inf(1), end: math.Inf(-1)}
	gaps := map[float64]int{}
	err := forEachSample(open, path, check, func(x sample) error {
		p := s.pods[x.pod]
		switch {
		case p == nil:
			s.pods[x.pod] = &span{first: x.t, last: x.t, samples: 1}
			s.order = append(s.order, x.pod)
		case x.t <= p.last:
			return fmt.Errorf("pod %s: sample at %v is not after its previous sample at %v; rows must be in time order per pod", x.pod, x.t, p.last)
		default:
			gaps[x.t-p.last]++
			p.last = x.t
			p.samples++
		}
		s.start, s.end = min(s.start, x.t), max(s.end, x.t)
		s.samples++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.samples == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	if s.step = median(gaps); s.step == 0 {
		s.step = fallbackStep
	}
	if s.step == 0 {
		return nil, fmt.Errorf("%s: cannot infer the sampling step: no pod has two samples", path)
	}
	return s, nil
}

// median returns the median of values given as value → count, or 0 for
// none; with an even count it averages the middle two.
func median(counts map[float64]int) float64 {
	keys := make([]float64, 0, len(counts))
	n := 0
	for k, c := range counts {
		keys = append(keys, k)
		n += c
	}
	slices.Sort(keys)
	at := func(i int) float64 { // the i-th value in sorted order
		for _, k := range keys {
			if i < counts[k] {
				return k
			}
			i -= counts[k]
		}
		return 0
	}
	if n == 0 {
		return 0
	}
	return (at((n-1)/2) + at(n/2)) / 2
}

// accumulate makes the second pass: every sample is added with the seconds
// it stands for, the gap to its pod's next sample capped at twice step, or
// step for a pod's last sample. Only one pending sample per pod is held.
func accumulate(open opener, path string, check valueCheck, step float64, add func(pod string, v, seconds float64)) error {
	pending := map[string]sample{}
	var order []string
	err := forEachSample(open, path, check, func(x sample) error {
		if p, ok := pending[x.pod]; ok {
			add(x.pod, p.v, min(x.t-p.t, 2*step))
		} else {
			order = append(order, x.pod)
		}
		pending[x.pod] = x
		return nil
	})
	if err != nil {
		return err
	}
	for _, pod := range order {
		add(pod, pending[pod].v, step)
	}
	return nil
}
