package snapshot

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sync"
	"time"
)

// encoder builds one frame's payload: a string table, then the body that
// refers to it. Strings are written once per frame and referred to by
// index (0 is ""), so repeated label keys, namespaces and units cost a byte
// or two, and the reader allocates all of a frame's strings at once.
// Encoders are pooled: their buffers are reused from frame to frame.
type encoder struct {
	body    []byte
	strings map[string]uint64
	list    []string
	out     []byte
	keys    []string // sortedKeys's scratch
}

var encoders = sync.Pool{New: func() any { return &encoder{strings: make(map[string]uint64)} }}

// newEncoder returns an empty encoder; release returns it to the pool.
func newEncoder() *encoder {
	e := encoders.Get().(*encoder)
	e.body, e.list, e.out = e.body[:0], e.list[:0], e.out[:0]
	clear(e.strings)
	return e
}

func (e *encoder) release() { encoders.Put(e) }

func (e *encoder) uvarint(v uint64) { e.body = binary.AppendUvarint(e.body, v) }
func (e *encoder) varint(v int64)   { e.body = binary.AppendVarint(e.body, v) }
func (e *encoder) byte(v byte)      { e.body = append(e.body, v) }

// float writes v's bits as a byte n, then the n leading bytes of the bits
// (big-endian) that are not trailing zeros: whole numbers and short binary
// fractions (seconds, percent buckets) end in zero bytes. 0 is one byte,
// 300 four, a full-precision float nine.
func (e *encoder) float(v float64) {
	u := math.Float64bits(v)
	n := 8 - bits.TrailingZeros64(u)/8
	e.body = append(e.body, byte(n))
	for i := range n {
		e.body = append(e.body, byte(u>>(56-8*i)))
	}
}

func (e *encoder) str(s string) {
	if s == "" {
		e.uvarint(0)
		return
	}
	i, ok := e.strings[s]
	if !ok {
		e.list = append(e.list, s)
		i = uint64(len(e.list))
		e.strings[s] = i
	}
	e.uvarint(i)
}

// time writes 0 for the zero time, else 1, Unix seconds, nanoseconds and
// the UTC offset in seconds (a location's name is not kept, as in JSON).
func (e *encoder) time(t time.Time) {
	if t.IsZero() {
		e.byte(0)
		return
	}
	_, off := t.Zone()
	e.byte(1)
	e.varint(t.Unix())
	e.uvarint(uint64(t.Nanosecond()))
	e.varint(int64(off))
}

// payload is the string table (count, each length, the bytes) then body,
// in a buffer the encoder reuses.
func (e *encoder) payload() []byte {
	out := binary.AppendUvarint(e.out[:0], uint64(len(e.list)))
	for _, s := range e.list {
		out = binary.AppendUvarint(out, uint64(len(s)))
	}
	for _, s := range e.list {
		out = append(out, s...)
	}
	e.out = append(out, e.body...)
	return e.out
}
