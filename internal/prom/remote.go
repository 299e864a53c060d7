package prom

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Remote read (POST /api/v1/read) with the STREAMED_XOR_CHUNKS answer:
// Prometheus sends the TSDB's stored chunks without decoding them, in
// frames of uvarint length, big-endian CRC32 (Castagnoli) of the payload,
// and a protobuf ChunkedReadResponse. The protobuf messages (prompb's
// remote.proto and types.proto) are encoded and decoded by hand.

// Label matcher types (prompb.LabelMatcher_Type).
const (
	MatchEqual     = 0
	MatchNotEqual  = 1
	MatchRegexp    = 2
	MatchNotRegexp = 3
)

// Matcher is one label matcher of a remote-read query. A Regexp value is
// the bare (anchored by Prometheus) regular expression, not a quoted one.
type Matcher struct {
	Type        int
	Name, Value string
}

const (
	remoteReadPath     = "/api/v1/read"
	streamedChunksType = "application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse"
	// maxFrame bounds one frame: Prometheus sends at most
	// --storage.remote.read-max-bytes-in-frame (1 MiB by default) plus
	// one chunk.
	maxFrame = 64 << 20
)

// Protobuf wire types.
const (
	wireVarint = 0
	wireI64    = 1
	wireBytes  = 2
	wireI32    = 5
)

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func appendBytesField(b []byte, field int, v []byte) []byte {
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendVarintField(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b // proto3 default
	}
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

// encodeReadRequest is the protobuf ReadRequest of one query over
// [startMs, endMs] (both included) accepting only streamed XOR chunks.
func encodeReadRequest(startMs, endMs int64, ms []Matcher) []byte {
	var q []byte
	q = appendVarintField(q, 1, uint64(startMs))
	q = appendVarintField(q, 2, uint64(endMs))
	for _, m := range ms {
		var mb []byte
		mb = appendVarintField(mb, 1, uint64(m.Type))
		mb = appendBytesField(mb, 2, []byte(m.Name))
		mb = appendBytesField(mb, 3, []byte(m.Value))
		q = appendBytesField(q, 3, mb)
	}
	var req []byte
	req = appendBytesField(req, 1, q)
	req = appendBytesField(req, 2, []byte{1}) // packed accepted_response_types: STREAMED_XOR_CHUNKS
	return req
}

// field is one protobuf field read by nextField: its number, wire type,
// and either its varint value or its bytes.
type pbField struct {
	num  int
	wire int
	v    uint64
	b    []byte
}

// nextField reads the field at the start of b and returns the rest.
func nextField(b []byte) (pbField, []byte, error) {
	// The common case, inline: a bytes field (labels, chunks' data in
	// small frames) with a one-byte tag and a one-byte length.
	if len(b) >= 2 && b[0]&0x87 == wireBytes && b[1] < 0x80 {
		if n := int(b[1]); n <= len(b)-2 {
			return pbField{num: int(b[0] >> 3), wire: wireBytes, b: b[2 : 2+n]}, b[2+n:], nil
		}
	}
	return nextFieldSlow(b)
}

func nextFieldSlow(b []byte) (pbField, []byte, error) {
	tag, n := binary.Uvarint(b)
	if n <= 0 {
		return pbField{}, nil, errors.New("protobuf: bad tag")
	}
	b = b[n:]
	f := pbField{num: int(tag >> 3), wire: int(tag & 7)}
	switch f.wire {
	case wireVarint:
		f.v, n = binary.Uvarint(b)
		if n <= 0 {
			return f, nil, errors.New("protobuf: bad varint")
		}
		return f, b[n:], nil
	case wireI64:
		if len(b) < 8 {
			return f, nil, errors.New("protobuf: truncated fixed64")
		}
		f.v = binary.LittleEndian.Uint64(b)
		return f, b[8:], nil
	case wireI32:
		if len(b) < 4 {
			return f, nil, errors.New("protobuf: truncated fixed32")
		}
		f.v = uint64(binary.LittleEndian.Uint32(b))
		return f, b[4:], nil
	case wireBytes:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return f, nil, errors.New("protobuf: truncated bytes")
		}
		f.b = b[n : n+int(l)]
		return f, b[n+int(l):], nil
	}
	return f, nil, fmt.Errorf("protobuf: unsupported wire type %d", f.wire)
}

// snappyLiteral is a valid snappy block holding b as literals only: the
// request is small and only Prometheus needs to read it.
func snappyLiteral(b []byte) []byte {
	out := binary.AppendUvarint(make([]byte, 0, len(b)+16), uint64(len(b)))
	for len(b) > 0 {
		n := min(len(b), 1<<16)
		if n <= 60 {
			out = append(out, byte(n-1)<<2)
		} else {
			out = append(out, 61<<2, byte(n-1), byte((n-1)>>8))
		}
		out = append(out, b[:n]...)
		b = b[n:]
	}
	return out
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errUnsupportedRead says the server did not answer with streamed chunks.
var errUnsupportedRead = errors.New("remote read: server did not answer with streamed XOR chunks")

// decodeChunkedRead reads a streamed remote-read answer. Each series'
// samples with startMs ≤ t ≤ endMs go, in time order and without NaNs
// (stale markers are gaps), to the PointFunc onSeries returned for it; a
// series split over consecutive frames is one series. With ends, only
// each series' first and last such sample are decoded and handed on (see
// Task.Ends).
//
// With reuse, one label map is cleared and refilled for every series:
// onSeries must not keep it (see transientLabels). With onPairs, series go
// to it instead of onSeries, their labels as a labelSet in the order sent
// that is refilled for the next series (see pairsBatch). With onSink (and
// without ends or onPairs), series go to it instead of onSeries, their
// labels as a list refilled for the next series (no map), and get their
// samples a chunk at a time.
func decodeChunkedRead(r io.Reader, startMs, endMs int64, onSeries SeriesFunc, ends, reuse bool, onPairs func(labelSet) PointFunc, onSink func(seriesLabels) sampleSink, keep func([]byte) bool) error {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readerPool.Put(br)
	}()
	var (
		shared   map[string]string // the reused label map
		buf      []byte
		prevLbls []byte // encoded labels of the current series
		seen     bool   // whether there is a current series
		names    = labelCache{strs: getInterned()}
		lbls     []byte
		chunks   [][]byte
		s        = seriesDecoder{startMs: startMs, endMs: endMs, ends: ends}
	)
	defer func() { putInterned(names.strs) }()
	for {
		size, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return s.finish()
		}
		if err != nil {
			return fmt.Errorf("remote read frame length: %w", noEOF(err))
		}
		if size > maxFrame {
			return fmt.Errorf("remote read frame of %d bytes exceeds %d", size, maxFrame)
		}
		var crc [4]byte
		if _, err := io.ReadFull(br, crc[:]); err != nil {
			return fmt.Errorf("remote read frame checksum: %w", noEOF(err))
		}
		if cap(buf) < int(size) {
			buf = make([]byte, size)
		}
		buf = buf[:size]
		if _, err := io.ReadFull(br, buf); err != nil {
			return fmt.Errorf("remote read frame: %w", noEOF(err))
		}
		if got, want := crc32.Checksum(buf, castagnoli), binary.BigEndian.Uint32(crc[:]); got != want {
			return fmt.Errorf("remote read frame: CRC32 %08x, want %08x", got, want)
		}
		for rest := buf; len(rest) > 0; {
			var f pbField
			if f, rest, err = nextField(rest); err != nil {
				return err
			}
			if f.num != 1 || f.wire != wireBytes { // query_index: one query per request
				continue
			}
			if lbls, chunks, err = splitSeries(f.b, lbls[:0], chunks[:0]); err != nil {
				return err
			}
			if !seen || !bytes.Equal(lbls, prevLbls) {
				var (
					l     map[string]string
					pairs labelSet
				)
				sinkSeries := onSink != nil && !ends
				switch {
				case onPairs == nil && sinkSeries:
					// Usage series: routed by a few labels, no map.
					pairs, err = decodeLabelSetOf(lbls, &names, keep)
				case onPairs != nil:
					if pairs, err = decodeLabelSet(lbls, &names); err == nil {
						// onPairs may change the list; the cache keeps its own.
						pairs = append(names.scratch[:0], pairs...)
						names.scratch = pairs
					}
				default:
					var into map[string]string
					if reuse {
						if shared == nil {
							shared = map[string]string{}
						}
						clear(shared)
						into = shared
					}
					l, err = decodeLabelPairs(lbls, &names, into)
				}
				if err != nil {
					return err
				}
				prevLbls, seen = append(prevLbls[:0], lbls...), true
				if err := s.finish(); err != nil {
					return err
				}
				switch {
				case onPairs != nil:
					s.start(onPairs(pairs), nil)
				case sinkSeries:
					s.start(nil, onSink(seriesLabels{s: pairs}))
				default:
					s.start(onSeries(l), nil)
				}
			}
			for _, c := range chunks {
				ch, ok, err := chunkData(c, startMs, endMs)
				if err != nil {
					return err
				}
				if ok {
					if err := s.chunk(ch); err != nil {
						return err
					}
				}
			}
		}
	}
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
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

// decodeLabelPairs decodes a series' labels into l, or into a new map
// when l is nil; their strings come from, or go to, c.
func decodeLabelPairs(b []byte, c *labelCache, l map[string]string) (map[string]string, error) {
	ls, err := decodeLabelSet(b, c)
	if err != nil {
		return nil, err
	}
	if l == nil {
		l = make(map[string]string, len(ls))
	}
	for _, p := range ls {
		l[p.name] = p.value
	}
	return l, nil
}

// decodeLabelSet decodes a series' labels, in the order sent, into c's
// list (valid until the next call).
func decodeLabelSet(b []byte, c *labelCache) (labelSet, error) {
	return decodeLabelSetOf(b, c, nil)
}

// decodeLabelSetOf is decodeLabelSet of the labels whose names keep
// accepts (all with a nil keep): the others are skipped, their strings
// neither made nor looked up.
func decodeLabelSetOf(b []byte, c *labelCache, keep func([]byte) bool) (labelSet, error) {
	c.prev, c.cur = c.cur, c.prev[:0]
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
		i := len(c.cur)
		if name, value, ok := splitPair(pair); ok {
			if keep != nil && !keep(name) {
				continue
			}
			c.cur = append(c.cur, labelPair{c.get(i, false, name), c.get(i, true, value)})
			continue
		}
		var p labelPair
		if keep != nil {
			// The name is the pair's first field (Prometheus and prompb's
			// encoder write them in field order); else decode it all.
			if g, _, err := nextField(pair); err == nil && g.num == 1 && g.wire == wireBytes && !keep(g.b) {
				continue
			}
		}
		for q := pair; len(q) > 0; {
			var (
				g   pbField
				err error
			)
			if g, q, err = nextField(q); err != nil {
				return nil, err
			}
			switch g.num {
			case 1:
				p.name = c.get(i, false, g.b)
			case 2:
				p.value = c.get(i, true, g.b)
			}
		}
		c.cur = append(c.cur, p)
	}
	return c.cur, nil
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

// labelCache turns label bytes into strings: series come sorted, so a
// label's name, and often its value (namespace, pod), is the previous
// series' at the same place, found without hashing; else from strs.
type labelCache struct {
	prev, cur labelSet
	scratch   labelSet // a copy of cur for onPairs, which may change it
	strs      interned
}

func (c *labelCache) get(i int, value bool, b []byte) string {
	if i < len(c.prev) {
		s := c.prev[i].name
		if value {
			s = c.prev[i].value
		}
		if s == string(b) {
			return s
		}
	}
	return c.strs.get(b)
}

// interned holds the label names and values of one answer: most repeat
// from series to series (names, namespaces, nodes, models), so each is
// allocated once. Bounded: past maxInterned it starts afresh.
type interned map[string]string

const maxInterned = 1 << 14

// internedPool hands each answer an interning table that earlier answers
// grew (and partly filled: their strings are as good as new ones), so that
// the table is not grown from empty, rehashing on the way, per request.
// It is a free list rather than a sync.Pool, which drops its contents
// at every other GC (often, during an ingest): each table starts at its
// full size and keeps it.
var internedPool = make(chan interned, 8)

func getInterned() interned {
	select {
	case s := <-internedPool:
		return s
	default:
		return make(interned, maxInterned)
	}
}

func putInterned(s interned) {
	select {
	case internedPool <- s:
	default:
	}
}

// readerPool holds the 64 KiB buffered readers of answers read before.
var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

func (s interned) get(b []byte) string {
	if v, ok := s[string(b)]; ok {
		return v
	}
	if len(s) >= maxInterned {
		clear(s)
	}
	v := string(b)
	s[v] = v
	return v
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

// remoteQuery reads a raw task's samples in (From, To] by remote read, in
// one request however long the span: Prometheus looks each series up once
// and re-encodes only the chunks cut by the span's ends. Each series'
// samples are weighed as rawQuery weighs them (see Task.Cap), so one
// request over the whole window gives each series one accumulator.
func (c *Client) remoteQuery(ctx context.Context, t Task) error {
	startMs, endMs := t.From.UnixMilli()+1, t.To.UnixMilli()
	body := snappyLiteral(encodeReadRequest(startMs, endMs, t.Matchers))
	var b Batch
	err := c.postRemoteRead(ctx, body, t.Query, func(r io.Reader) error {
		b = t.Open()
		onSeries, onSink, flush := weighSeries(b, t.Cap)
		_, reuse := b.(transientLabels)
		var onPairs func(labelSet) PointFunc
		if pb, ok := b.(pairsBatch); ok && t.Cap <= 0 {
			onPairs = pb.seriesPairs
		}
		var keep func([]byte) bool
		if rb, ok := b.(routedBatch); ok {
			keep = rb.routedBy
		}
		err := decodeChunkedRead(r, startMs, endMs, onSeries, t.Ends, reuse, onPairs, onSink, keep)
		flush()
		return err
	})
	if err == nil {
		b.Commit()
	}
	return err
}

// transientLabels is a Batch that keeps none of the label maps its
// Series (or Weighted) is handed: remote read then reuses one map for all
// of a request's series.
type transientLabels interface {
	Batch
	transientLabels()
}

// routedBatch is a Batch whose remote-read series (sampleSinks) need only
// the labels whose names routedBy accepts: the others are not decoded.
type routedBatch interface {
	Batch
	routedBy(name []byte) bool
}

// pairsBatch is a Batch that takes remote read's series as label lists
// (see factBatch.seriesPairs) rather than maps.
type pairsBatch interface {
	Batch
	seriesPairs(labelSet) PointFunc
}

// RemoteReadWorks tells whether the server answers remote read with
// streamed XOR chunks, by reading ms over [startMs, endMs]. Prometheus
// does (since 2.13); a server that answers 404/405, only SAMPLES, or
// anything else does not.
func (c *Client) RemoteReadWorks(ctx context.Context, startMs, endMs int64, ms []Matcher) bool {
	body := snappyLiteral(encodeReadRequest(startMs, endMs, ms))
	err := c.postRemoteRead(ctx, body, "remote read probe", func(r io.Reader) error {
		return decodeChunkedRead(r, startMs, endMs, func(map[string]string) PointFunc { return nil }, false, true, nil, nil, nil)
	})
	return err == nil
}

func (c *Client) postRemoteRead(ctx context.Context, body []byte, query string, read func(io.Reader) error) error {
	return c.do(ctx, remoteReadPath, query, func(ctx context.Context, endpoint string) (*http.Request, error) {
		req, err := newRequest(ctx, endpoint, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		c.authorize(req)
		req.Header.Set("Content-Type", "application/x-protobuf")
		req.Header.Set("Content-Encoding", "snappy")
		req.Header.Set("Accept", streamedChunksType)
		req.Header.Set("X-Prometheus-Remote-Read-Version", "0.1.0")
		return req, nil
	}, func(contentType string, r io.Reader) error {
		if !strings.HasPrefix(contentType, "application/x-streamed-protobuf") {
			return &apiError{kind: Bad, msg: fmt.Sprintf("%v (content type %q)", errUnsupportedRead, contentType)}
		}
		return read(r)
	})
}
