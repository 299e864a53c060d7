package snapshot

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Version is the format version this build writes and reads.
const Version = 1

// Kind marks a gpuwise snapshot document.
const Kind = "gpuwise.snapshot"

type document struct {
	Kind     string            `json:"kind"`
	Version  int               `json:"version"`
	Snapshot *cluster.Snapshot `json:"snapshot"`
}

// ErrFormat is wrapped by every error about the file's content (as opposed
// to I/O), so the CLI can map it to its exit code.
var ErrFormat = errors.New("not a valid gpuwise snapshot")

// Write encodes s as gzip JSON to w.
func Write(w io.Writer, s *cluster.Snapshot) error {
	zw := gzip.NewWriter(w)
	enc := json.NewEncoder(zw)
	if err := enc.Encode(document{Kind: Kind, Version: Version, Snapshot: s}); err != nil {
		return fmt.Errorf("encoding snapshot: %w", err)
	}
	return zw.Close()
}

// WriteFile writes s to path, replacing it only once fully written.
func WriteFile(path string, s *cluster.Snapshot) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	bw := bufio.NewWriter(f)
	err = errors.Join(Write(bw, s), bw.Flush(), f.Close())
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// Read decodes a snapshot from r. It accepts gzip or plain JSON.
func Read(r io.Reader) (*cluster.Snapshot, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	var src io.Reader = br
	if bytes.Equal(head, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip header: %v", ErrFormat, err)
		}
		defer zr.Close()
		src = zr
	}
	var doc document
	dec := json.NewDecoder(src)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return checkDocument(doc)
}

func checkDocument(doc document) (*cluster.Snapshot, error) {
	switch {
	case doc.Kind != Kind:
		return nil, fmt.Errorf("%w: kind is %q, want %q", ErrFormat, doc.Kind, Kind)
	case doc.Version != Version:
		return nil, fmt.Errorf("%w: version %d is not supported by this gpuwise (it reads version %d); use the gpuwise release that wrote it or re-collect", ErrFormat, doc.Version, Version)
	case doc.Snapshot == nil:
		return nil, fmt.Errorf("%w: no snapshot in document", ErrFormat)
	}
	return doc.Snapshot, nil
}

// ReadFile reads the snapshot at path.
func ReadFile(path string) (*cluster.Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading snapshot: %w", err)
	}
	defer f.Close()
	s, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("reading snapshot %s: %w", path, err)
	}
	return s, nil
}
