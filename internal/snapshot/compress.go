package snapshot

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Frames are compressed with zstd (github.com/klauspost/compress, pure
// Go): at its fastest level it compresses the frames about as well as
// gzip's default level does, at several times the speed, and it
// decompresses several times faster than compress/gzip; docs/performance.md
// has the measurements. The encoder and decoder are shared: EncodeAll and
// DecodeAll may run concurrently.
var (
	zstdEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
		return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithLowerEncoderMem(true))
	})
	zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
		return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(maxFrameBytes), zstd.WithDecoderMaxWindow(maxFrameBytes))
	})
)

// compress returns f with raw compressed, or stored as is (copied: raw is
// the encoder's buffer) when that is not smaller.
func compress(f frame, raw []byte) (frame, error) {
	f.rawLen = len(raw)
	enc, err := zstdEncoder()
	if err != nil {
		return frame{}, fmt.Errorf("starting zstd: %w", err)
	}
	z := enc.EncodeAll(raw, make([]byte, 0, len(raw)/2))
	if len(z) < len(raw) {
		f.codec, f.stored = codecZstd, z
		return f, nil
	}
	f.codec, f.stored = codecNone, bytes.Clone(raw)
	if f.stored == nil {
		f.stored = []byte{}
	}
	return f, nil
}

// decompress returns f's raw payload, in dst when it is large enough.
func decompress(f frame, dst []byte) ([]byte, error) {
	if f.codec == codecNone {
		return f.stored, nil
	}
	dec, err := zstdDecoder()
	if err != nil {
		return nil, fmt.Errorf("starting zstd: %w", err)
	}
	if cap(dst) < f.rawLen {
		dst = make([]byte, 0, roomy(f.rawLen))
	}
	raw, err := dec.DecodeAll(f.stored, dst[:0:f.rawLen])
	if err != nil {
		return nil, fmt.Errorf("%w: frame %d: zstd: %v", ErrFormat, f.index, err)
	}
	if len(raw) != f.rawLen {
		return nil, fmt.Errorf("%w: frame %d: %d bytes decompressed, the header says %d", ErrFormat, f.index, len(raw), f.rawLen)
	}
	if len(raw) > 0 && &raw[0] == &dst[:1][0] {
		raw = dst[:len(raw)] // with dst's whole capacity, for the next frame
	}
	return raw, nil
}

// roomy is the capacity of a new frame buffer for n bytes: a quarter
// more, so that the next frames, of about the same size, reuse it instead
// of allocating their own (50 MB less garbage per read at 10k GPUs).
func roomy(n int) int { return min(n+n/4, maxFrameBytes) }
