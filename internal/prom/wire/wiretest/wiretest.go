package wiretest

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/bits"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// bitWriter writes bits, most significant first.
type bitWriter struct {
	b []byte
	n uint // bits written
}

func (w *bitWriter) write(v uint64, n uint) {
	for i := int(n) - 1; i >= 0; i-- {
		if w.n%8 == 0 {
			w.b = append(w.b, 0)
		}
		if v>>uint(i)&1 == 1 {
			w.b[len(w.b)-1] |= 1 << (7 - w.n%8)
		}
		w.n++
	}
}

// EncodeXOR writes samples as one Prometheus XOR chunk (see wire's xor.go
// for the layout).
func EncodeXOR(samples []wire.Sample) []byte {
	w := &bitWriter{}
	w.write(uint64(len(samples)), 16)
	var prevT, prevDelta int64
	var prevV uint64
	leading, trailing := uint(0xff), uint(0)
	for i, s := range samples {
		vb := math.Float64bits(s.V)
		switch i {
		case 0:
			for _, c := range binary.AppendVarint(nil, s.T) {
				w.write(uint64(c), 8)
			}
			w.write(vb, 64)
			prevT, prevV = s.T, vb
			continue
		case 1:
			prevDelta = s.T - prevT
			for _, c := range binary.AppendUvarint(nil, uint64(prevDelta)) {
				w.write(uint64(c), 8)
			}
		default:
			delta := s.T - prevT
			writeDoD(w, delta-prevDelta)
			prevDelta = delta
		}
		prevT = s.T
		leading, trailing = writeValue(w, vb^prevV, leading, trailing)
		prevV = vb
	}
	return w.b
}

func writeDoD(w *bitWriter, dod int64) {
	in := func(n uint) bool { return -(1<<(n-1))+1 <= dod && dod <= 1<<(n-1) }
	switch {
	case dod == 0:
		w.write(0, 1)
	case in(14):
		w.write(0b10, 2)
		w.write(uint64(dod), 14)
	case in(17):
		w.write(0b110, 3)
		w.write(uint64(dod), 17)
	case in(20):
		w.write(0b1110, 4)
		w.write(uint64(dod), 20)
	default:
		w.write(0b1111, 4)
		w.write(uint64(dod), 64)
	}
}

func writeValue(w *bitWriter, x uint64, leading, trailing uint) (uint, uint) {
	if x == 0 {
		w.write(0, 1)
		return leading, trailing
	}
	w.write(1, 1)
	l, tr := uint(bits.LeadingZeros64(x)), uint(bits.TrailingZeros64(x))
	if l >= 32 {
		l = 31
	}
	if leading != 0xff && l >= leading && tr >= trailing {
		w.write(0, 1)
		w.write(x>>trailing, 64-leading-trailing)
		return leading, trailing
	}
	w.write(1, 1)
	w.write(uint64(l), 5)
	sig := 64 - l - tr
	w.write(uint64(sig), 6) // 64 is written as 0
	w.write(x>>tr, sig)
	return l, tr
}

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

// BytesField appends a protobuf bytes field.
func BytesField(b []byte, field int, v []byte) []byte {
	b = appendTag(b, field, 2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// VarintField appends a protobuf varint field (nothing for 0, proto3's
// default).
func VarintField(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.AppendUvarint(appendTag(b, field, 0), v)
}

// Labels is a series' Label messages, in order, as Prometheus writes
// them (an empty value left out).
func Labels(l [][2]string) []byte {
	var b []byte
	for _, p := range l {
		pair := BytesField(nil, 1, []byte(p[0]))
		if p[1] != "" {
			pair = BytesField(pair, 2, []byte(p[1]))
		}
		b = BytesField(b, 1, pair)
	}
	return b
}

// Chunk is a Chunk message holding an XOR chunk.
func Chunk(minT, maxT int64, data []byte) []byte {
	var c []byte
	c = VarintField(c, 1, uint64(minT))
	c = VarintField(c, 2, uint64(maxT))
	c = VarintField(c, 3, 1)
	return BytesField(c, 4, data)
}

// Series is a ChunkedReadResponse holding one ChunkedSeries.
func Series(l [][2]string, chunks ...[]byte) []byte {
	s := Labels(l)
	for _, c := range chunks {
		s = BytesField(s, 2, c)
	}
	return BytesField(nil, 1, s)
}

// Frame frames a payload: uvarint length, big-endian CRC32-C, payload.
func Frame(payload []byte) []byte {
	f := binary.AppendUvarint(nil, uint64(len(payload)))
	f = binary.BigEndian.AppendUint32(f, crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)))
	return append(f, payload...)
}

// SeriesFrames is one frame per series of samples, each series one chunk
// (several when it holds more than 120 samples, as Prometheus cuts them).
func SeriesFrames(l [][2]string, samples []wire.Sample) []byte {
	var chunks [][]byte
	for i := 0; i < len(samples); i += 120 {
		c := samples[i:min(i+120, len(samples))]
		chunks = append(chunks, Chunk(c[0].T, c[len(c)-1].T, EncodeXOR(c)))
	}
	return Frame(Series(l, chunks...))
}

// ReadQuery is one query of a remote-read request.
type ReadQuery struct {
	Start, End int64
	Matchers   []wire.Matcher
}

var errRequest = errors.New("wiretest: malformed remote-read request")

// DecodeReadRequest reads back a remote-read request body (a snappy block
// of literals, as wire writes it): its queries and accepted response
// types.
func DecodeReadRequest(body []byte) (qs []ReadQuery, types []uint64, err error) {
	pb, err := snappyLiterals(body)
	if err != nil {
		return nil, nil, err
	}
	err = fields(pb, func(num int, v uint64, b []byte) error {
		switch num {
		case 1:
			q, err := readQuery(b)
			qs = append(qs, q)
			return err
		case 2:
			for p := b; len(p) > 0; {
				v, n := binary.Uvarint(p)
				if n <= 0 {
					return errRequest
				}
				types, p = append(types, v), p[n:]
			}
		}
		return nil
	})
	return qs, types, err
}

func readQuery(b []byte) (ReadQuery, error) {
	var q ReadQuery
	err := fields(b, func(num int, v uint64, b []byte) error {
		switch num {
		case 1:
			q.Start = int64(v)
		case 2:
			q.End = int64(v)
		case 3:
			var m wire.Matcher
			err := fields(b, func(num int, v uint64, b []byte) error {
				switch num {
				case 1:
					m.Type = int(v)
				case 2:
					m.Name = string(b)
				case 3:
					m.Value = string(b)
				}
				return nil
			})
			q.Matchers = append(q.Matchers, m)
			return err
		}
		return nil
	})
	return q, err
}

// fields walks protobuf fields of varint and bytes wire types.
func fields(b []byte, each func(num int, v uint64, b []byte) error) error {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return errRequest
		}
		b = b[n:]
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return errRequest
		}
		b = b[n:]
		var data []byte
		if tag&7 == 2 {
			if v > uint64(len(b)) {
				return errRequest
			}
			data, b = b[:v], b[v:]
		}
		if err := each(int(tag>>3), v, data); err != nil {
			return err
		}
	}
	return nil
}

// snappyLiterals decodes a snappy block made of literals only.
func snappyLiterals(b []byte) ([]byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errRequest
	}
	b = b[k:]
	var out []byte
	for len(b) > 0 {
		tag := b[0]
		if tag&3 != 0 {
			return nil, errors.New("wiretest: snappy tag is not a literal")
		}
		l, b2, err := literalLen(tag, b[1:])
		if err != nil || l > len(b2) {
			return nil, errRequest
		}
		out, b = append(out, b2[:l]...), b2[l:]
	}
	if uint64(len(out)) != n {
		return nil, errRequest
	}
	return out, nil
}

func literalLen(tag byte, b []byte) (int, []byte, error) {
	switch tag >> 2 {
	case 60:
		if len(b) < 1 {
			return 0, nil, errRequest
		}
		return int(b[0]) + 1, b[1:], nil
	case 61:
		if len(b) < 2 {
			return 0, nil, errRequest
		}
		return int(binary.LittleEndian.Uint16(b)) + 1, b[2:], nil
	}
	return int(tag>>2) + 1, b, nil
}
