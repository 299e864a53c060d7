package snapshot

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// document is a version 1 file: gzip-compressed (or plain) JSON.
type document struct {
	Kind     string            `json:"kind"`
	Version  int               `json:"version"`
	Snapshot *cluster.Snapshot `json:"snapshot"`
}

// readV1 reads a version 1 document. It reads the gzip stream to its end,
// so its CRC-32 and length are verified, accepts one gzip member and one
// JSON value and nothing after them but whitespace, and counts the JSON
// text against MaxBytes as it is read.
func readV1(br *bufio.Reader, b *budget) (*cluster.Snapshot, error) {
	var src io.Reader = br
	var zr *gzip.Reader
	if head, _ := br.Peek(2); bytes.Equal(head, []byte{0x1f, 0x8b}) {
		var err error
		if zr, err = gzip.NewReader(br); err != nil {
			return nil, fmt.Errorf("%w: gzip header: %v", ErrFormat, err)
		}
		zr.Multistream(false)
		src = zr
	}
	text := &limitReader{r: src, max: b.opts.MaxBytes}
	var doc document
	dec := json.NewDecoder(text)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, jsonErr(err, zr != nil)
	}
	if err := onlySpace(io.MultiReader(dec.Buffered(), text), zr != nil); err != nil {
		return nil, err
	}
	if zr != nil {
		if _, err := br.Peek(1); err != io.EOF {
			return nil, fmt.Errorf("%w: data after the gzip stream (a second stream appended, or garbage)", ErrFormat)
		}
	}
	s, err := checkDocument(doc)
	if err != nil {
		return nil, err
	}
	return s, b.check(s)
}

// jsonErr classifies a decoding error: a limit, a corrupt or truncated
// gzip stream, or JSON that is not a snapshot.
func jsonErr(err error, gzipped bool) error {
	var lim *LimitError
	switch {
	case errors.As(err, &lim):
		return lim
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("%w: gzip stream: %v (the file is corrupt)", ErrFormat, err)
	case gzipped && errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: gzip stream: unexpected EOF (the file is truncated)", ErrFormat)
	}
	return fmt.Errorf("%w: %v", ErrFormat, err)
}

// onlySpace reads r to its end (which makes gzip verify its checksum) and
// fails on anything but JSON whitespace.
func onlySpace(r io.Reader, gzipped bool) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if i := bytes.IndexFunc(buf[:n], func(c rune) bool { return c != ' ' && c != '\t' && c != '\n' && c != '\r' }); i >= 0 {
			return fmt.Errorf("%w: data after the snapshot's JSON document (a second document appended, or garbage)", ErrFormat)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return jsonErr(err, gzipped)
		}
	}
}

// limitReader fails with a LimitError once more than max bytes are read.
type limitReader struct {
	r         io.Reader
	max, read int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	// left is computed as max - read + 1 in that order: max + 1 overflows
	// when max is math.MaxInt64 (--max-snapshot-bytes 9223372036854775807).
	if left := l.max - l.read; left < math.MaxInt64 && int64(len(p)) > left+1 {
		p = p[:left+1]
	}
	n, err := l.r.Read(p)
	if l.read += int64(n); l.read > l.max {
		return 0, limitErr("the decompressed snapshot", l.read, "MaxBytes", l.max)
	}
	return n, err
}

func checkDocument(doc document) (*cluster.Snapshot, error) {
	switch {
	case doc.Kind != Kind:
		return nil, fmt.Errorf("%w: kind is %q, want %q", ErrFormat, doc.Kind, Kind)
	case doc.Version != 1:
		return nil, versionErr(int64(doc.Version))
	case doc.Snapshot == nil:
		return nil, fmt.Errorf("%w: no snapshot in document", ErrFormat)
	}
	return doc.Snapshot, nil
}
