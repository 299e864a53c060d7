package prom

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

// bitReader reads a byte slice as a stream of bits, most significant first.
type bitReader struct {
	b   []byte
	pos uint // bits read
	end uint // len(b) * 8
}

// bits reads n ≤ 64 bits.
func (r *bitReader) bits(n uint) (uint64, error) {
	if n == 0 {
		return 0, nil
	}
	if r.pos+n > r.end {
		return 0, errXOR
	}
	i, off := r.pos>>3, r.pos&7
	if off+n <= 64 && int(i)+8 <= len(r.b) { // one 8-byte load
		r.pos += n
		return binary.BigEndian.Uint64(r.b[i:]) << off >> (64 - n), nil
	}
	var v uint64
	for n > 0 {
		off := r.pos & 7
		avail := 8 - off
		take := min(avail, n)
		cur := uint64(r.b[r.pos>>3]>>(avail-take)) & (1<<take - 1)
		v = v<<take | cur
		r.pos += take
		n -= take
	}
	return v, nil
}

func (r *bitReader) bit() (bool, error) {
	if r.pos >= r.end {
		return false, errXOR
	}
	b := r.b[r.pos>>3]>>(7-r.pos&7)&1 == 1
	r.pos++
	return b, nil
}

func (r *bitReader) ReadByte() (byte, error) {
	v, err := r.bits(8)
	return byte(v), err
}

// decodeXOR hands every sample of an XOR chunk to fn: timestamp in
// milliseconds and value (stale markers and other NaNs included).
func decodeXOR(data []byte, fn func(t int64, v float64)) error {
	var buf []xorSample
	buf, err := appendXOR(buf, data)
	for _, s := range buf {
		fn(s.t, s.v)
	}
	return err
}

// xorSample is one decoded sample: timestamp in ms and value.
type xorSample struct {
	t int64
	v float64
}

// appendXOR appends every sample of an XOR chunk to out (stale markers and
// other NaNs included). On a malformed chunk it returns the samples
// decoded before the fault with the error. The hot loop reads bits from a
// local copy of the reader so that nothing escapes and nothing is called
// through an interface per sample.
func appendXOR(out []xorSample, data []byte) ([]xorSample, error) {
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
	out = append(out, xorSample{t, math.Float64frombits(vb)})
	if n == 1 {
		return out, nil
	}
	ud, m := binary.Uvarint(b[k:])
	if m <= 0 {
		return out, fmt.Errorf("xor chunk: first delta: %w", errXOR)
	}
	k += m
	r := bitReader{b: b, pos: uint(k) * 8, end: uint(len(b)) * 8}
	delta := int64(ud)
	var leading, trailing uint
	var err error
	for i := 1; i < n; i++ {
		if i > 1 {
			dod, err := readDoD(&r)
			if err != nil {
				return out, err
			}
			delta += dod
		}
		t += delta
		if vb, leading, trailing, err = readXORValue(&r, vb, leading, trailing); err != nil {
			return out, err
		}
		out = append(out, xorSample{t, math.Float64frombits(vb)})
	}
	return out, nil
}

func readDoD(r *bitReader) (int64, error) {
	var prefix int
	if r.pos+4 <= r.end { // peek the (at most 4-bit) prefix at once
		p, _ := r.bits(4)
		prefix = bits.LeadingZeros8(^uint8(p << 4))
		if prefix > 4 {
			prefix = 4
		}
		used := uint(prefix + 1)
		if prefix == 4 {
			used = 4
		}
		r.pos -= 4 - used
	} else {
		for prefix < 4 {
			b, err := r.bit()
			if err != nil {
				return 0, err
			}
			if !b {
				break
			}
			prefix++
		}
	}
	var sz uint
	switch prefix {
	case 0:
		return 0, nil
	case 1:
		sz = 14
	case 2:
		sz = 17
	case 3:
		sz = 20
	default:
		v, err := r.bits(64)
		return int64(v), err
	}
	v, err := r.bits(sz)
	if err != nil {
		return 0, err
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
