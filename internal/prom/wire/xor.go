package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Prometheus' XOR chunk (tsdb/chunkenc, the Gorilla encoding), as remote
// read's STREAMED_XOR_CHUNKS answers carry it unchanged from the TSDB:
//
//	2 bytes   big-endian sample count
//	sample 0  timestamp (signed varint, ms), value (64 bits)
//	sample 1  timestamp delta (uvarint), value XOR-coded
//	sample n  delta of delta: '0' (0), '10'+14 bits, '110'+17 bits,
//	          '1110'+20 bits, '1111'+64 bits (two's complement);
//	          value XOR-coded
//
// A value is XOR-coded against the previous one: '0' (same value), or '1'
// then '0' + the meaningful bits in the previous window of leading and
// trailing zeros, or '1' + 5 bits leading zeros + 6 bits meaningful bit
// count (0 meaning 64) + the meaningful bits. Bits are read MSB first.

var errXOR = errors.New("xor chunk: truncated or malformed")

// bitReader reads a byte slice as a stream of bits, most significant
// first, through a 64-bit buffer refilled a word at a time: a read is a
// shift, not a byte-by-byte walk.
type bitReader struct {
	b []byte
	i int    // the next byte of b to buffer
	w uint64 // buffered bits, left-aligned; the bits below them are 0 or the stream's next ones
	n uint   // buffered bits
}

// fill buffers at least 57 bits, or all that are left. It is kept out of
// line so that the reads that call it when the buffer runs low inline.
//
//go:noinline
func (r *bitReader) fill() {
	if r.i+8 <= len(r.b) {
		// The bits past the whole bytes taken are the stream's next
		// ones: OR-ing them in again later changes nothing.
		r.w |= binary.BigEndian.Uint64(r.b[r.i:]) >> r.n
		k := (64 - r.n) >> 3
		r.i += int(k)
		r.n += k << 3
		return
	}
	for r.n <= 56 && r.i < len(r.b) {
		r.w |= uint64(r.b[r.i]) << (56 - r.n)
		r.i++
		r.n += 8
	}
}

// bits reads n ≤ 64 bits.
func (r *bitReader) bits(n uint) (uint64, error) {
	if n > 56 {
		return r.wide(n)
	}
	if r.n < n {
		if r.fill(); r.n < n {
			return 0, errXOR
		}
	}
	v := r.w >> (64 - n) // 0 for n = 0
	r.w <<= n
	r.n -= n
	return v, nil
}

// wide reads 56 < n ≤ 64 bits, more than one fill guarantees.
func (r *bitReader) wide(n uint) (uint64, error) {
	hi, err := r.bits(n - 32)
	if err != nil {
		return 0, err
	}
	lo, err := r.bits(32)
	return hi<<32 | lo, err
}

func (r *bitReader) bit() (bool, error) {
	if r.n == 0 {
		if r.fill(); r.n == 0 {
			return false, errXOR
		}
	}
	b := r.w>>63 == 1
	r.w <<= 1
	r.n--
	return b, nil
}

// Sample is one decoded sample: timestamp in milliseconds and value.
type Sample struct {
	T int64
	V float64
}

// AppendXOR appends every sample of an XOR chunk to out (stale markers and
// other NaNs included). On a malformed chunk it returns the samples
// decoded before the fault with the error. The hot loop reads bits from a
// local copy of the reader so that nothing escapes and nothing is called
// through an interface per sample.
func AppendXOR(out []Sample, data []byte) ([]Sample, error) {
	if len(data) < 2 {
		return out, errXOR
	}
	n := int(binary.BigEndian.Uint16(data))
	if n == 0 {
		return out, nil
	}
	b := data[2:]
	// The first timestamp, value and delta are byte aligned.
	t, k := binary.Varint(b)
	if k <= 0 {
		return out, fmt.Errorf("xor chunk: first timestamp: %w", errXOR)
	}
	if len(b)-k < 8 {
		return out, errXOR
	}
	vb := binary.BigEndian.Uint64(b[k:])
	k += 8
	out = slices.Grow(out, n)
	out = append(out, Sample{t, math.Float64frombits(vb)})
	if n == 1 {
		return out, nil
	}
	ud, m := binary.Uvarint(b[k:])
	if m <= 0 {
		return out, fmt.Errorf("xor chunk: first delta: %w", errXOR)
	}
	k += m
	r := bitReader{b: b, i: k}
	delta := int64(ud)
	var leading, trailing uint
	var err error
	for i := 1; i < n; i++ {
		// The common cases are read inline: an unchanged delta ('0'), an
		// unchanged value ('0'), a value in the previous window ('10' +
		// its bits) and one in a new window ('11' + 5 + 6 bits + its
		// bits); readDoD and readXORValue do the rest. The buffer is
		// topped up to ≥ 57 bits before each, a word at a time inline
		// while 8 bytes are left.
		if r.n < 57 {
			if r.i+8 <= len(b) {
				r.w |= binary.BigEndian.Uint64(b[r.i:]) >> r.n
				k := (64 - r.n) >> 3
				r.i += int(k)
				r.n += k << 3
			} else {
				r.fill()
			}
		}
		if i > 1 {
			if r.n > 0 && r.w>>63 == 0 {
				r.w <<= 1
				r.n--
			} else {
				dod, err := readDoD(&r)
				if err != nil {
					return out, err
				}
				delta += dod
			}
		}
		t += delta
		if r.n < 57 {
			if r.i+8 <= len(b) {
				r.w |= binary.BigEndian.Uint64(b[r.i:]) >> r.n
				k := (64 - r.n) >> 3
				r.i += int(k)
				r.n += k << 3
			} else {
				r.fill()
			}
		}
		sig := 64 - leading - trailing
		switch top := r.w >> 62; {
		case top < 2 && r.n > 0:
			r.w <<= 1
			r.n--
		case top == 2 && sig <= 54 && r.n >= 2+sig:
			vb ^= r.w << 2 >> (64 - sig) << trailing
			r.w <<= 2 + sig
			r.n -= 2 + sig
		case top == 3 && r.n >= 13 && r.n >= 13+uint(r.w>>51&63) && r.w>>51&63 != 0 && uint(r.w>>57&31)+uint(r.w>>51&63) <= 64:
			// A new window whose bits are all buffered (m = 0, 64
			// meaningful bits, takes the slow path).
			l, m := uint(r.w>>57&31), uint(r.w>>51&63)
			leading, trailing = l, 64-l-m
			vb ^= r.w << 13 >> (64 - m) << trailing
			r.w <<= 13 + m
			r.n -= 13 + m
		default:
			if vb, leading, trailing, err = readXORValue(&r, vb, leading, trailing); err != nil {
				return out, err
			}
		}
		out = append(out, Sample{t, math.Float64frombits(vb)})
	}
	return out, nil
}

func readDoD(r *bitReader) (int64, error) {
	if r.n < 4 {
		r.fill()
	}
	// The prefix is up to 4 one bits ended by a zero; bits past the
	// buffered ones are 0, so the count stops there.
	prefix := uint(bits.LeadingZeros64(^r.w))
	var sz uint
	switch {
	case prefix == 0:
		sz = 0
	case prefix == 1:
		sz = 14
	case prefix == 2:
		sz = 17
	case prefix == 3:
		sz = 20
	default:
		prefix, sz = 4, 64
	}
	used := min(prefix+1, 4)
	if used > r.n {
		return 0, errXOR
	}
	r.w <<= used
	r.n -= used
	if sz == 0 {
		return 0, nil
	}
	v, err := r.bits(sz)
	if err != nil || sz == 64 {
		return int64(v), err
	}
	if v > 1<<(sz-1) { // two's complement in sz bits
		return int64(v) - 1<<sz, nil
	}
	return int64(v), nil
}

func readXORValue(r *bitReader, prev uint64, leading, trailing uint) (uint64, uint, uint, error) {
	changed, err := r.bit()
	if err != nil || !changed {
		return prev, leading, trailing, err
	}
	newWindow, err := r.bit()
	if err != nil {
		return 0, 0, 0, err
	}
	if newWindow {
		l, err := r.bits(5)
		if err != nil {
			return 0, 0, 0, err
		}
		m, err := r.bits(6)
		if err != nil {
			return 0, 0, 0, err
		}
		if m == 0 {
			m = 64
		}
		if l+m > 64 {
			return 0, 0, 0, errXOR
		}
		leading, trailing = uint(l), uint(64-l-m)
	}
	sig := 64 - leading - trailing
	x, err := r.bits(sig)
	if err != nil {
		return 0, 0, 0, err
	}
	return prev ^ x<<trailing, leading, trailing, nil
}
