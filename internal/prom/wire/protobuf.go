package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// pbField is one protobuf field read by nextField: its number, wire type,
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
