package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sync"
)

// Remote read (POST /api/v1/read) with the STREAMED_XOR_CHUNKS answer:
// Prometheus sends the TSDB's stored chunks without decoding them, in
// frames of uvarint length, big-endian CRC32 (Castagnoli) of the payload,
// and a protobuf ChunkedReadResponse. The protobuf messages (prompb's
// remote.proto and types.proto) are decoded by hand.

// maxFrame bounds one frame: Prometheus sends at most
// --storage.remote.read-max-bytes-in-frame (1 MiB by default) plus one
// chunk.
const maxFrame = 64 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SampleSink takes one series' samples a run at a time: in range, in time
// order, each timestamp once, no NaNs (stale markers are gaps). The slice
// is the decoder's, valid until Samples returns. End is called when the
// series ends.
type SampleSink interface {
	Samples(xs []Sample)
	End()
}

// ChunkedRead says what DecodeChunkedRead hands on.
type ChunkedRead struct {
	// StartMs and EndMs bound the samples handed on, both included.
	StartMs, EndMs int64
	// Ends hands each series only its first and last sample in range,
	// decoding as few chunks as it can: all that a reader of a series'
	// first sighting and last value needs.
	Ends bool
	// Keep, when set, says which labels to decode: the others are
	// skipped, their strings neither made nor looked up.
	Keep   func(name []byte) bool
	Limits Limits
}

// DecodeChunkedRead reads a streamed remote-read answer. Each series'
// labels (in the order sent, valid until onSeries returns; see Labels) go
// to onSeries, and its samples to the SampleSink onSeries returns for it
// (nil skips the series without decoding its chunks). A series split over
// consecutive frames is one series. Every frame's CRC is checked.
func DecodeChunkedRead(r io.Reader, q ChunkedRead, onSeries func(Labels) SampleSink) error {
	d := chunkedDecoder{q: q, onSeries: onSeries, names: newLabelCache(),
		s: seriesDecoder{startMs: q.StartMs, endMs: q.EndMs, ends: q.Ends}}
	d.br = readerPool.Get().(*bufio.Reader)
	d.br.Reset(r)
	defer d.release()
	for {
		payload, err := d.frame()
		if err == io.EOF {
			return d.s.finish()
		}
		if err != nil {
			return err
		}
		if err := d.payload(payload); err != nil {
			return err
		}
	}
}

// readerPool holds the 64 KiB buffered readers of answers read before.
var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// chunkedDecoder is DecodeChunkedRead's state.
type chunkedDecoder struct {
	q        ChunkedRead
	onSeries func(Labels) SampleSink
	br       *bufio.Reader
	buf      []byte // the current frame
	names    *labelCache
	lbls     []byte // encoded labels of the series being read
	prevLbls []byte // encoded labels of the current series
	chunks   [][]byte
	seen     bool // whether there is a current series
	series   int
	s        seriesDecoder
}

func (d *chunkedDecoder) release() {
	d.br.Reset(nil)
	readerPool.Put(d.br)
	d.names.release()
}

// frame reads and checks the next frame; io.EOF when there is none.
func (d *chunkedDecoder) frame() ([]byte, error) {
	size, err := binary.ReadUvarint(d.br)
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("remote read frame length: %w", noEOF(err))
	}
	if size > maxFrame {
		return nil, fmt.Errorf("remote read frame of %d bytes exceeds %d", size, maxFrame)
	}
	var crc [4]byte
	if _, err := io.ReadFull(d.br, crc[:]); err != nil {
		return nil, fmt.Errorf("remote read frame checksum: %w", noEOF(err))
	}
	if cap(d.buf) < int(size) {
		d.buf = make([]byte, size)
	}
	d.buf = d.buf[:size]
	if _, err := io.ReadFull(d.br, d.buf); err != nil {
		return nil, fmt.Errorf("remote read frame: %w", noEOF(err))
	}
	if got, want := crc32.Checksum(d.buf, castagnoli), binary.BigEndian.Uint32(crc[:]); got != want {
		return nil, fmt.Errorf("remote read frame: CRC32 %08x, want %08x", got, want)
	}
	return d.buf, nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// payload reads one ChunkedReadResponse: its ChunkedSeries (field 1; the
// query index, field 2, is always 0: one query per request).
func (d *chunkedDecoder) payload(b []byte) error {
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return err
		}
		b = rest
		if f.num != 1 || f.wire != wireBytes {
			continue
		}
		if d.lbls, d.chunks, err = splitSeries(f.b, d.lbls[:0], d.chunks[:0]); err != nil {
			return err
		}
		if !d.seen || !bytes.Equal(d.lbls, d.prevLbls) {
			if err := d.startSeries(); err != nil {
				return err
			}
		}
		if err := d.seriesChunks(); err != nil {
			return err
		}
	}
	return nil
}

// startSeries ends the current series and starts the one whose labels
// were just read.
func (d *chunkedDecoder) startSeries() error {
	if d.series++; d.q.Limits.tooMany(d.series) {
		return d.q.Limits.seriesError()
	}
	ls, err := decodeLabels(d.lbls, d.names, d.q.Keep, d.q.Limits)
	if err != nil {
		return err
	}
	d.prevLbls, d.seen = append(d.prevLbls[:0], d.lbls...), true
	if err := d.s.finish(); err != nil {
		return err
	}
	d.s.start(d.onSeries(ls))
	return nil
}

func (d *chunkedDecoder) seriesChunks() error {
	for _, c := range d.chunks {
		ch, ok, err := chunkData(c, d.q.StartMs, d.q.EndMs)
		if err != nil {
			return err
		}
		if ok {
			if err := d.s.chunk(ch); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitSeries appends a ChunkedSeries' labels (their fields, encoded, in
// order) to lbls and its chunks to chunks.
func splitSeries(b, lbls []byte, chunks [][]byte) ([]byte, [][]byte, error) {
	for len(b) > 0 {
		start := b
		var (
			f   pbField
			err error
		)
		if f, b, err = nextField(b); err != nil {
			return nil, nil, err
		}
		switch {
		case f.num == 1 && f.wire == wireBytes:
			lbls = append(lbls, start[:len(start)-len(b)]...)
		case f.num == 2 && f.wire == wireBytes:
			chunks = append(chunks, f.b)
		}
	}
	return lbls, chunks, nil
}

// decodeLabels decodes a series' labels whose names keep accepts (all
// with a nil keep), in the order sent, into c's list (valid until the
// next call).
func decodeLabels(b []byte, c *labelCache, keep func([]byte) bool, lim Limits) (Labels, error) {
	c.next()
	for len(b) > 0 {
		var pair []byte
		// One-byte tags and lengths (label pairs under 128 bytes) are read
		// inline, others by nextField.
		if n := len(b); n >= 2 && b[0] == 1<<3|wireBytes && b[1] < 0x80 && int(b[1]) <= n-2 {
			pair, b = b[2:2+int(b[1])], b[2+int(b[1]):]
		} else {
			f, rest, err := nextField(b)
			if err != nil {
				return nil, err
			}
			pair, b = f.b, rest
		}
		if err := c.addPair(pair, keep, lim); err != nil {
			return nil, err
		}
	}
	return c.cur, nil
}

// addPair decodes one Label message into c's list, unless keep refuses it.
func (c *labelCache) addPair(pair []byte, keep func([]byte) bool, lim Limits) error {
	i := len(c.cur)
	if name, value, ok := splitPair(pair); ok {
		if lim.tooLong(len(name)) || lim.tooLong(len(value)) {
			return lim.labelError()
		}
		if keep == nil || keep(name) {
			c.cur = append(c.cur, Label{c.get(i, false, name), c.get(i, true, value)})
		}
		return nil
	}
	if keep != nil {
		// The name is the pair's first field (Prometheus and prompb's
		// encoder write them in field order); else decode it all.
		if g, _, err := nextField(pair); err == nil && g.num == 1 && g.wire == wireBytes && !keep(g.b) {
			return nil
		}
	}
	var p Label
	for q := pair; len(q) > 0; {
		g, rest, err := nextField(q)
		if err != nil {
			return err
		}
		if q = rest; lim.tooLong(len(g.b)) {
			return lim.labelError()
		}
		switch g.num {
		case 1:
			p.Name = c.get(i, false, g.b)
		case 2:
			p.Value = c.get(i, true, g.b)
		}
	}
	c.cur = append(c.cur, p)
	return nil
}

// splitPair reads a Label message written as Prometheus writes it: name
// (field 1) then value (field 2, left out when empty), one-byte tags and
// lengths. ok is false for anything else.
func splitPair(b []byte) (name, value []byte, ok bool) {
	if len(b) < 2 || b[0] != 1<<3|wireBytes || b[1] >= 0x80 || int(b[1]) > len(b)-2 {
		return nil, nil, false
	}
	name, b = b[2:2+int(b[1])], b[2+int(b[1]):]
	if len(b) == 0 {
		return name, nil, true
	}
	if len(b) < 2 || b[0] != 2<<3|wireBytes || b[1] >= 0x80 || int(b[1]) != len(b)-2 {
		return nil, nil, false
	}
	return name, b[2:], true
}

// xorChunk is one XOR chunk of a series: its time range and its data.
type xorChunk struct {
	minT, maxT int64
	data       []byte
}

// chunkData returns one Chunk message's XOR chunk, or ok false for a
// chunk entirely outside [startMs, endMs] or not XOR (native histograms).
func chunkData(b []byte, startMs, endMs int64) (c xorChunk, ok bool, err error) {
	var typ uint64
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return c, false, err
		}
		b = rest
		switch f.num {
		case 1:
			c.minT = int64(f.v)
		case 2:
			c.maxT = int64(f.v)
		case 3:
			typ = f.v
		case 4:
			c.data = f.b
		}
	}
	if typ != 1 || c.maxT < startMs || c.minT > endMs {
		return c, false, nil
	}
	return c, true, nil
}
