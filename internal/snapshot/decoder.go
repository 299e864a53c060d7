package snapshot

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// decoder reads one frame's payload. Its error is sticky: after the first
// problem every read returns a zero value, and the caller checks err once
// per object. Every count is checked against the bytes left before
// anything is allocated for it (each element takes at least one byte), so
// a frame cannot make the reader allocate much more than its size beyond
// what the limits allow.
type decoder struct {
	b       []byte
	strings []string
	err     error
	budget  *budget
	// version is the file's: fields a later version added are read only
	// from files that have them.
	version uint64
	// early marks an early version 2 file, written before the partial
	// list joined the header and Node.Pods the node: it has neither.
	early bool
	// hours is the slab the hourly series are read into (series).
	hours []float32
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) > 0 && d.b[0] < 0x80 { // most counts and string references
		v := uint64(d.b[0])
		d.b = d.b[1:]
		return v
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("truncated or overlong number")
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

// float reads what encoder.float writes.
func (d *decoder) float() float64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) >= 9 && d.b[0] <= 8 { // one load: the bytes past n are masked off
		n := uint(d.b[0])
		u := binary.BigEndian.Uint64(d.b[1:9]) & ^(^uint64(0) >> (8 * n))
		d.b = d.b[1+n:]
		return math.Float64frombits(u)
	}
	n := int(d.byte())
	if n > 8 || n > len(d.b) {
		d.fail("truncated or malformed number")
		return 0
	}
	var u uint64
	for i := range n {
		u |= uint64(d.b[i]) << (56 - 8*i)
	}
	d.b = d.b[n:]
	return math.Float64frombits(u)
}

// int reads a varint that must fit an int.
func (d *decoder) int() int {
	v := d.varint()
	if int64(int(v)) != v {
		d.fail("number %d out of range", v)
	}
	return int(v)
}

// count reads an element count, at most one per byte left.
func (d *decoder) count(what string) int {
	v := d.uvarint()
	if v > uint64(len(d.b)) {
		d.fail("%s: count %d is more than the frame holds", what, v)
		return 0
	}
	return int(v)
}

func (d *decoder) str() string {
	i := d.uvarint()
	if i > uint64(len(d.strings)) {
		d.fail("string %d: the frame's table has %d", i, len(d.strings))
		return ""
	}
	if i == 0 {
		return ""
	}
	return d.strings[i-1]
}

// time reads what encoder.time writes; times come back in UTC or, with
// an offset, in a fixed zone of that offset.
func (d *decoder) time() time.Time {
	switch d.byte() {
	case 0:
		return time.Time{}
	case 1:
	default:
		d.fail("time: unknown tag")
		return time.Time{}
	}
	sec, nsec, off := d.varint(), d.uvarint(), d.varint()
	if nsec >= 1e9 || off <= -24*3600 || off >= 24*3600 {
		d.fail("time: nanoseconds %d or offset %d out of range", nsec, off)
		return time.Time{}
	}
	t := time.Unix(sec, int64(nsec)).UTC()
	if off != 0 {
		t = t.In(time.FixedZone("", int(off)))
	}
	if y := t.Year(); y < 0 || y > 9999 {
		// As in version 1: RFC 3339 has four-digit years.
		d.fail("time: year %d outside 0..9999", y)
		return time.Time{}
	}
	return t
}

// table reads the frame's string table: one allocation holds every
// string's bytes.
func (d *decoder) table(maxLen int) {
	n := d.count("string table")
	lens := make([]int, n)
	total := 0
	for i := range lens {
		l := d.uvarint()
		if l > uint64(maxLen) {
			d.err = limitErr("a string", int64(l), "MaxStringBytes", int64(maxLen))
			return
		}
		lens[i] = int(l)
		total += int(l)
		if total > len(d.b) {
			d.fail("string table: %d bytes of strings, the frame holds %d", total, len(d.b))
			return
		}
	}
	if d.err != nil {
		return
	}
	all := string(d.b[:total])
	d.b = d.b[total:]
	d.strings = make([]string, n)
	at := 0
	for i, l := range lens {
		d.strings[i] = all[at : at+l]
		at += l
	}
}
