package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// A version 2 or 3 file is the magic (Kind, 16 bytes), the version as a
// uvarint, then frames: one header frame, the node frames, the pod frames,
// (version 3) the hourly frames, and an empty end frame, then nothing. Each frame is a 20-byte header and
// its stored payload:
//
//	0      type: 'H', 'N', 'P', 'W' or 'E'
//	1      codec: 0 stored as is, 1 zstd
//	2..3   reserved, 0
//	4..7   index: the frame's position in the file, from 0
//	8..11  raw length: the payload's length once decompressed
//	12..15 stored length
//	16..19 CRC-32C (Castagnoli) of bytes 0..15 and the stored payload
//
// all little-endian. The checksum is verified before a payload is
// decompressed, and the raw length bounds the decompression; the index
// catches frames dropped, repeated or reordered.
const frameHeaderLen = 20

// Frame types.
const (
	frameHeader = 'H'
	frameNodes  = 'N'
	framePods   = 'P'
	frameHourly = 'W' // version 3: hourly series, a frame of workloads
	frameEnd    = 'E'
)

// Payload codecs.
const (
	codecNone = 0
	codecZstd = 1
)

// maxFrameBytes bounds one frame's raw and stored payload. The writer's
// frames are about a megabyte; the bound keeps a reader's buffers small
// whatever a file claims.
const maxFrameBytes = 64 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errOverBudget is readFrame's signal that the frame would take the read
// past MaxBytes; the reader turns it into a LimitError.
var errOverBudget = errors.New("frame over budget")

type frame struct {
	typ, codec byte
	index      uint32
	rawLen     int
	stored     []byte
}

// appendFrame appends f's header and stored payload to dst.
func appendFrame(dst []byte, f frame) []byte {
	var h [frameHeaderLen]byte
	h[0], h[1] = f.typ, f.codec
	binary.LittleEndian.PutUint32(h[4:], f.index)
	binary.LittleEndian.PutUint32(h[8:], uint32(f.rawLen))
	binary.LittleEndian.PutUint32(h[12:], uint32(len(f.stored)))
	crc := crc32.Update(crc32.Checksum(h[:16], castagnoli), castagnoli, f.stored)
	binary.LittleEndian.PutUint32(h[16:], crc)
	return append(append(dst, h[:]...), f.stored...)
}

// readFrame reads frame number index from r into buf (reused when large
// enough) and verifies its checksum. A frame whose raw length is over
// budget fails with a LimitError before its payload is read.
func readFrame(r io.Reader, index uint32, buf []byte, budget int64) (frame, error) {
	var h [frameHeaderLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return frame{}, truncated(fmt.Sprintf("frame %d", index), err)
	}
	f := frame{typ: h[0], codec: h[1], index: binary.LittleEndian.Uint32(h[4:]),
		rawLen: int(binary.LittleEndian.Uint32(h[8:]))}
	stored := int(binary.LittleEndian.Uint32(h[12:]))
	switch {
	case h[2] != 0 || h[3] != 0 || f.codec > codecZstd:
		return frame{}, fmt.Errorf("%w: frame %d: unknown codec or flags (a newer gpuwise wrote it?)", ErrFormat, index)
	case f.index != index:
		return frame{}, fmt.Errorf("%w: frame %d is numbered %d: frames missing, repeated or out of order", ErrFormat, index, f.index)
	case stored > maxFrameBytes || f.rawLen > maxFrameBytes:
		return frame{}, fmt.Errorf("%w: frame %d claims %d bytes (%d stored), over the %d a frame may hold", ErrFormat, index, f.rawLen, stored, maxFrameBytes)
	case f.codec == codecNone && stored != f.rawLen, f.codec == codecZstd && stored >= f.rawLen:
		// The writer stores a payload as is unless zstd makes it smaller.
		return frame{}, fmt.Errorf("%w: frame %d: %d bytes stored for %d raw", ErrFormat, index, stored, f.rawLen)
	case int64(f.rawLen) > budget:
		return frame{rawLen: f.rawLen}, errOverBudget
	}
	if cap(buf) < stored {
		buf = make([]byte, stored, roomy(stored))
	}
	f.stored = buf[:stored]
	if _, err := io.ReadFull(r, f.stored); err != nil {
		return frame{}, truncated(fmt.Sprintf("frame %d", index), err)
	}
	crc := crc32.Update(crc32.Checksum(h[:16], castagnoli), castagnoli, f.stored)
	if want := binary.LittleEndian.Uint32(h[16:]); crc != want {
		return frame{}, fmt.Errorf("%w: frame %d: checksum mismatch (CRC-32C %08x, header says %08x): the file is corrupt", ErrFormat, index, crc, want)
	}
	return f, nil
}

// truncated turns an early end of input into a format error; other read
// errors stay I/O errors.
func truncated(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s: file ends early (truncated)", ErrFormat, what)
	}
	return fmt.Errorf("reading %s: %w", what, err)
}
