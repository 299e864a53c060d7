package snapshot

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// minItemBytes is the fewest bytes a node or a pod takes (one per string
// reference, count, number and time: 15 for either), so a frame's item
// count is checked against its length before anything is allocated for
// it; memory follows the bytes actually read, not what a header claims.
const minItemBytes = 15

// reader reads a version 2 file after its magic: frames in order from r,
// each decompressed and decoded by a worker into its own slice of nodes or
// pods (frame k of pods holds pods [k·per, (k+1)·per)), joined at the end.
type reader struct {
	r        *bufio.Reader
	budget   *budget
	next     uint32 // the index of the next frame
	rawTotal int64
	version  uint64
	early    bool // an early version 2 file (decoder.early)
}

// header is what the header frame declares, and the parts decoded since.
type header struct {
	snap              *cluster.Snapshot
	nodes, pods       int
	nilNodes, nilPods bool
	nodesPer, podsPer int
	nodeParts         [][]cluster.Node
	podParts          [][]cluster.Pod
	hourly            hourlyHeader
}

func readV2(r *bufio.Reader, b *budget) (*cluster.Snapshot, error) {
	v, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, truncated("version", err)
	}
	if v < 2 || v > Version {
		return nil, versionErr(int64(min(v, 1<<62)))
	}
	rd := &reader{r: r, budget: b, version: v}
	h, err := rd.header()
	if err != nil {
		return nil, err
	}
	if err := rd.body(h); err != nil {
		return nil, err
	}
	if err := rd.hourly(h); err != nil {
		return nil, err
	}
	if err := rd.end(); err != nil {
		return nil, err
	}
	return h.join(), nil
}

// frame reads the next frame, which must be of type typ, within MaxBytes.
func (rd *reader) frame(typ byte, buf []byte) (frame, error) {
	max := rd.budget.opts.MaxBytes
	f, err := readFrame(rd.r, rd.next, buf, max-rd.rawTotal)
	if err == errOverBudget {
		return frame{}, limitErr("the decompressed snapshot", rd.rawTotal+int64(f.rawLen), "MaxBytes", max)
	}
	if err != nil {
		return frame{}, err
	}
	if f.typ != typ {
		return frame{}, fmt.Errorf("%w: frame %d is of type %q, want %q", ErrFormat, f.index, f.typ, typ)
	}
	rd.next++
	rd.rawTotal += int64(f.rawLen)
	return f, nil
}

func (rd *reader) header() (*header, error) {
	f, err := rd.frame(frameHeader, nil)
	if err != nil {
		return nil, err
	}
	raw, err := decompress(f, nil)
	if err != nil {
		return nil, err
	}
	h, err := rd.parseHeader(raw, true)
	if err != nil && rd.version == 2 && errors.Is(err, ErrFormat) {
		// Version 2 files written before the partial list joined the
		// header (e344bee) have none after the notes, nor Node.Pods in
		// their nodes (5c39a8f); main's later ones have both.
		if early, errEarly := rd.parseHeader(raw, false); errEarly == nil {
			rd.early = true
			return early, nil
		}
	}
	return h, err
}

// parseHeader decodes the header frame; withPartial says whether the
// partial list follows the notes (version 3, and version 2 since e344bee).
func (rd *reader) parseHeader(raw []byte, withPartial bool) (*header, error) {
	d := &decoder{b: raw, budget: rd.budget, version: rd.version}
	d.table(rd.budget.opts.MaxStringBytes)
	s := &cluster.Snapshot{}
	s.Window.Start, s.Window.End = d.time(), d.time()
	s.Source, s.ActivityMetric = d.str(), d.str()
	s.Notes = d.strs("notes")
	if withPartial {
		s.Partial = d.strs("partial")
	}
	nodes, nilNodes := lenOrNil(d.uvarint())
	pods, nilPods := lenOrNil(d.uvarint())
	nodesPer, podsPer := d.uvarint(), d.uvarint()
	hourly := d.hourlyHeader(s)
	switch {
	case rd.version >= 5:
		s.Unknown = d.strs("unknown facts")
		s.DRA = d.dra()
		if rd.version >= 6 {
			s.Kueue = d.kueue()
		}
		if rd.version >= 7 {
			s.Controls = d.controls()
		}
		if rd.version >= 8 {
			if v := d.uvarint(); v != rd.version && d.err == nil {
				d.fail("header: it says version %d, the file %d", v, rd.version)
			}
		}
	case rd.version >= 3 && d.err == nil && len(d.b) > 0:
		// Versions 3 and 4 write the unknown facts only when there are any.
		s.Unknown = d.strs("unknown facts")
	}
	if err := finish(d, "header"); err != nil {
		return nil, err
	}
	o := rd.budget.opts
	switch {
	case nodes > uint64(o.MaxNodes):
		return nil, limitErr(fmt.Sprintf("the number of nodes (%d)", nodes), int64(min(nodes, 1<<62)), "MaxNodes", int64(o.MaxNodes))
	case pods > uint64(o.MaxPods):
		return nil, limitErr(fmt.Sprintf("the number of pods (%d)", pods), int64(min(pods, 1<<62)), "MaxPods", int64(o.MaxPods))
	case nodesPer < 1 || podsPer < 1 || nodesPer > maxFrameBytes || podsPer > maxFrameBytes:
		return nil, fmt.Errorf("%w: header: %d nodes and %d pods per frame", ErrFormat, nodesPer, podsPer)
	}
	return &header{snap: s, nodes: int(nodes), pods: int(pods), nilNodes: nilNodes, nilPods: nilPods, hourly: hourly,
		nodesPer: int(nodesPer), podsPer: int(podsPer),
		nodeParts: make([][]cluster.Node, frames(int(nodes), int(nodesPer))),
		podParts:  make([][]cluster.Pod, frames(int(pods), int(podsPer)))}, nil
}

// lenOrNil undoes nilOrLen on a count read whole.
func lenOrNil(v uint64) (uint64, bool) {
	if v == 0 {
		return 0, true
	}
	return v - 1, false
}

// join assembles the decoded parts into the snapshot's node and pod lists.
func (h *header) join() *cluster.Snapshot {
	if !h.nilNodes {
		h.snap.Nodes = slices.Concat(h.nodeParts...)
		if h.snap.Nodes == nil {
			h.snap.Nodes = []cluster.Node{}
		}
	}
	if !h.nilPods {
		h.snap.Pods = slices.Concat(h.podParts...)
		if h.snap.Pods == nil {
			h.snap.Pods = []cluster.Pod{}
		}
	}
	return h.snap
}

// finish reports the decoder's error, or bytes left over after what the
// frame should hold.
func finish(d *decoder, what string) error {
	if d.err != nil {
		return fmt.Errorf("%s: %w", what, d.err)
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%w: %s: %d bytes past its end", ErrFormat, what, len(d.b))
	}
	return nil
}

// job is one frame to decode into its part of the node or pod list.
type job struct {
	f     frame
	nodes []cluster.Node
	pods  []cluster.Pod
}

// body reads the node and pod frames and decodes them on GOMAXPROCS
// workers; the first error stops it.
func (rd *reader) body(h *header) error {
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan job, workers)
	free := make(chan []byte, 2*workers) // stored payload buffers, reused
	var (
		once     sync.Once
		firstErr error
		failed   = make(chan struct{})
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		once.Do(func() { firstErr = err; close(failed) })
	}
	for range workers {
		wg.Go(func() { rd.work(jobs, free, fail, failed) })
	}
	err := rd.dispatch(h, jobs, free, failed)
	close(jobs)
	wg.Wait()
	if err != nil {
		fail(err)
	}
	return firstErr
}

// dispatch reads each frame, allocates its part once its length shows
// that the part's items can be there, and queues it.
func (rd *reader) dispatch(h *header, jobs chan<- job, free chan []byte, failed <-chan struct{}) error {
	for k := range len(h.nodeParts) + len(h.podParts) {
		var buf []byte
		select {
		case buf = <-free:
		default:
		}
		typ, n := byte(frameNodes), 0
		if k < len(h.nodeParts) {
			n = min(h.nodesPer, h.nodes-k*h.nodesPer)
		} else {
			typ, n = framePods, min(h.podsPer, h.pods-(k-len(h.nodeParts))*h.podsPer)
		}
		f, err := rd.frame(typ, buf)
		if err != nil {
			return err
		}
		if n > f.rawLen/minItemBytes {
			return fmt.Errorf("%w: frame %d: %d bytes cannot hold %d items", ErrFormat, f.index, f.rawLen, n)
		}
		j := job{f: f}
		if typ == frameNodes {
			j.nodes = make([]cluster.Node, n)
			h.nodeParts[k] = j.nodes
		} else {
			j.pods = make([]cluster.Pod, n)
			h.podParts[k-len(h.nodeParts)] = j.pods
		}
		select {
		case jobs <- j:
		case <-failed:
			return nil
		}
	}
	return nil
}

func (rd *reader) work(jobs <-chan job, free chan<- []byte, fail func(error), failed <-chan struct{}) {
	var raw []byte
	sl := &slabs{}
	for j := range jobs {
		select {
		case <-failed:
			continue
		default:
		}
		var err error
		raw, err = rd.decode(j, raw, sl)
		if err != nil {
			fail(err)
		}
		select {
		case free <- j.f.stored[:0]:
		default:
		}
	}
}

// decode decompresses j's frame into raw (reused) and decodes it, its
// accumulators from the worker's slabs.
func (rd *reader) decode(j job, raw []byte, sl *slabs) ([]byte, error) {
	out, err := decompress(j.f, raw)
	if err != nil {
		return raw, err
	}
	if j.f.codec != codecNone {
		raw = out
	}
	d := &podDecoder{decoder: decoder{b: out, budget: rd.budget, version: rd.version, early: rd.early}, slabs: sl}
	d.table(rd.budget.opts.MaxStringBytes)
	for i := range j.nodes {
		d.node(&j.nodes[i])
	}
	for i := range j.pods {
		d.pod(&j.pods[i])
	}
	return raw, finish(&d.decoder, fmt.Sprintf("frame %d", j.f.index))
}

// end reads the end frame and checks that nothing follows it.
func (rd *reader) end() error {
	f, err := rd.frame(frameEnd, nil)
	if err != nil {
		return err
	}
	if f.rawLen != 0 || len(f.stored) != 0 {
		return fmt.Errorf("%w: end frame carries %d bytes", ErrFormat, len(f.stored))
	}
	if _, err := rd.r.Peek(1); err != io.EOF {
		if err != nil {
			return fmt.Errorf("reading snapshot: %w", err)
		}
		return fmt.Errorf("%w: data after the end of the snapshot (a second snapshot appended, or garbage)", ErrFormat)
	}
	return nil
}
