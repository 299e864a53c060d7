package snapshot

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Version 3 adds the snapshot's hourly series: the header says whether
// there are any (a byte), then the workloads' count + 1 (0: a nil list),
// the idle threshold and how many workloads a frame holds; 'W' frames after the pod frames hold the
// workloads in order. A workload is its key, first hour and server, then
// each series of cluster.WorkloadHours.Series in order: a count + 1 (0:
// nil) and its values as little-endian float32 bits, NaN (an hour without
// data) included.

// Version 5 adds, after a workload's series, its per-model series: a
// count + 1 (0: nil), then each model's name and the series of
// cluster.ModelHours.ModelSeries in order, encoded as above.

// Version 8 adds, after a workload's models, its latency histogram
// (cluster.LatencyHours): a byte (0: none), then the metric's name, the
// bounds' count and each bound as a float, and the counts as a series.

// workloadsPerFrame is about a megabyte of a week's series.
const workloadsPerFrame = 1024

// minWorkloadBytes is the fewest bytes a workload takes (key, hour,
// server and fifteen absent series), checked against a frame's length
// before its workloads are allocated.
const minWorkloadBytes = 18

func hourlyOf(s *cluster.Snapshot) []cluster.WorkloadHours {
	if s.Hourly == nil {
		return nil
	}
	return s.Hourly.Workloads
}

func hourlyHeaderPayload(e *encoder, h *cluster.Hourly) {
	if h == nil {
		e.byte(0)
		return
	}
	e.byte(1)
	e.nilOrLen(h.Workloads == nil, len(h.Workloads))
	e.float(h.IdleThreshold)
	e.uvarint(workloadsPerFrame)
}

func hourlyPayload(e *encoder, ws []cluster.WorkloadHours, k int) {
	for i := k * workloadsPerFrame; i < min(len(ws), (k+1)*workloadsPerFrame); i++ {
		w := &ws[i]
		e.str(w.Workload)
		e.varint(int64(w.From))
		e.str(w.Server)
		for _, ns := range w.Series() {
			s := *ns.Series
			e.nilOrLen(s == nil, len(s))
			for _, v := range s {
				e.body = binary.LittleEndian.AppendUint32(e.body, math.Float32bits(v))
			}
		}
		e.nilOrLen(w.Models == nil, len(w.Models))
		for j := range w.Models {
			m := &w.Models[j]
			e.str(m.Model)
			for _, ns := range m.ModelSeries() {
				e.hourSeries(*ns.Series)
			}
		}
		e.latency(w.Latency)
	}
}

func (e *encoder) latency(l *cluster.LatencyHours) {
	if l == nil {
		e.byte(0)
		return
	}
	e.byte(1)
	e.str(l.Metric)
	e.nilOrLen(l.Bounds == nil, len(l.Bounds))
	for _, b := range l.Bounds {
		e.float(b)
	}
	e.hourSeries(l.Counts)
}

// latency reads what encoder.latency writes (version 8).
func (d *decoder) latency(workload string) *cluster.LatencyHours {
	if d.version < 8 || d.byte() == 0 || d.err != nil {
		return nil
	}
	l := &cluster.LatencyHours{Metric: d.str()}
	n, isNil := d.nilOrLen("latency bounds")
	if n > len(d.b) { // a bound takes at least a byte
		d.fail("hourly %s: %d latency bounds are more than the frame holds", workload, n)
		return nil
	}
	if !isNil {
		l.Bounds = make([]float64, n)
		for i := range l.Bounds {
			l.Bounds[i] = d.float()
		}
	}
	l.Counts = d.series("latency counts")
	return l
}

func (e *encoder) hourSeries(s cluster.Series) {
	e.nilOrLen(s == nil, len(s))
	for _, v := range s {
		e.body = binary.LittleEndian.AppendUint32(e.body, math.Float32bits(v))
	}
}

// hourlyHeader is what the header declares of the hourly series.
type hourlyHeader struct {
	present    bool
	nilList    bool
	workloads  int
	perFrame   int
	threshold  float64
	frameCount int
}

// hourlyHeader reads the header's hourly part (version 3).
func (d *decoder) hourlyHeader(s *cluster.Snapshot) hourlyHeader {
	if d.version < 3 || d.byte() == 0 || d.err != nil {
		return hourlyHeader{}
	}
	n, nilList := lenOrNil(d.uvarint())
	h := hourlyHeader{present: true, nilList: nilList, threshold: d.float(), perFrame: int(min(d.uvarint(), maxFrameBytes))}
	switch {
	case n > uint64(d.budget.opts.MaxPods):
		d.fail("header: %d workloads with hourly series, more than MaxPods (%d)", n, d.budget.opts.MaxPods)
	case h.perFrame < 1:
		d.fail("header: %d workloads per hourly frame", h.perFrame)
	default:
		h.workloads = int(n)
		h.frameCount = frames(h.workloads, h.perFrame)
	}
	return h
}

// hourly reads the hourly frames (version 3) into the snapshot.
func (rd *reader) hourly(h *header) error {
	hh := h.hourly
	if !hh.present {
		return nil
	}
	out := &cluster.Hourly{IdleThreshold: hh.threshold}
	if !hh.nilList {
		out.Workloads = make([]cluster.WorkloadHours, 0, min(hh.workloads, hh.perFrame))
	}
	var raw []byte
	var slab []float32
	for k := range hh.frameCount {
		f, err := rd.frame(frameHourly, nil)
		if err != nil {
			return err
		}
		n := min(hh.perFrame, hh.workloads-k*hh.perFrame)
		if n > f.rawLen/minWorkloadBytes {
			return fmt.Errorf("%w: frame %d: %d bytes cannot hold %d workloads", ErrFormat, f.index, f.rawLen, n)
		}
		if raw, err = decompress(f, raw[:0]); err != nil {
			return err
		}
		d := &decoder{b: raw, budget: rd.budget, version: rd.version, hours: slab}
		d.table(rd.budget.opts.MaxStringBytes)
		for range n {
			out.Workloads = append(out.Workloads, d.workloadHours())
		}
		slab = d.hours
		if err := finish(d, fmt.Sprintf("frame %d", f.index)); err != nil {
			return err
		}
	}
	h.snap.Hourly = out
	return nil
}

func (d *decoder) workloadHours() cluster.WorkloadHours {
	w := cluster.WorkloadHours{Workload: d.str(), From: int(d.varint()), Server: d.str()}
	for _, ns := range w.Series() {
		*ns.Series = d.series(ns.Name)
	}
	if d.version < 5 {
		return w
	}
	// Each model takes at least three bytes (a name and two absent series).
	if n, isNil := d.nilOrLen("models"); !isNil && d.err == nil {
		if 3*n > len(d.b) {
			d.fail("hourly %s: %d models are more than the frame holds", w.Workload, n)
			return w
		}
		w.Models = make([]cluster.ModelHours, n)
		for j := range w.Models {
			m := &w.Models[j]
			m.Model = d.str()
			for _, ns := range m.ModelSeries() {
				*ns.Series = d.series(ns.Name)
			}
		}
	}
	w.Latency = d.latency(w.Workload)
	return w
}

// hoursSlab is the number of hourly values the reader allocates at once
// (64 KiB): the series are handed out from it, capped at their length.
const hoursSlab = 16 << 10

// series reads one hourly series: nil, or its float32 values.
func (d *decoder) series(what string) cluster.Series {
	n, isNil := d.nilOrLen(what)
	if isNil || d.err != nil {
		return nil
	}
	if 4*n > len(d.b) {
		d.fail("%s: %d hours are more than the frame holds", what, n)
		return nil
	}
	if n == 0 {
		return cluster.Series{} // present, if empty: not nil
	}
	if len(d.hours) < n {
		d.hours = make([]float32, max(n, hoursSlab))
	}
	s := cluster.Series(d.hours[:n:n])
	d.hours = d.hours[n:]
	for i := range s {
		s[i] = math.Float32frombits(binary.LittleEndian.Uint32(d.b[4*i:]))
	}
	d.b = d.b[4*n:]
	return s
}
