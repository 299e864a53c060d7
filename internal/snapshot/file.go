package snapshot

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Version is the format version this build writes: 8, the framed binary
// format (frame.go) with the hourly series (with the servers' latency
// histograms, hourly.go), interruptions, checkpoint hints, the nodes'
// provider IDs (matched against cloud bills), DRA and HAMi allocation
// (dra.go), Kueue's queues and workloads (kueue.go) and the controls:
// autoscalers, NodePools and admission policies (controls.go); the header
// ends with the version again. Version 7 (the same without latency
// histograms and the repeated version), version 6 (the same without the
// controls), version 5 (the same without Kueue), version 4 (the same without DRA and HAMi
// shares), version 3 (the same without provider IDs), version 2 (the same without them) and version 1 (gzip or plain
// JSON) are still read.
const Version = 8

// Kind marks a gpuwise snapshot: the "kind" of a version 1 JSON document
// and the first 16 bytes of a version 2 file.
const Kind = "gpuwise.snapshot"

// ErrFormat is wrapped by every error about the file's content (as opposed
// to I/O), so the CLI can map it to its exit code.
var ErrFormat = errors.New("not a valid gpuwise snapshot")

func versionErr(v int64) error {
	return fmt.Errorf("%w: version %d is not supported by this gpuwise (it reads versions 1 to %d); use the gpuwise release that wrote it or re-collect", ErrFormat, v, Version)
}

// WriteFile writes s to path, replacing it only once fully written.
func WriteFile(path string, s *cluster.Snapshot) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = errors.Join(Write(bw, s), bw.Flush(), f.Close())
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// Read decodes a snapshot from r with the default limits.
func Read(r io.Reader) (*cluster.Snapshot, error) { return DefaultReadOptions().Read(r) }

// ReadFile reads the snapshot at path with the default limits.
func ReadFile(path string) (*cluster.Snapshot, error) { return DefaultReadOptions().ReadFile(path) }

// Read decodes a snapshot from r, of either version, within o's limits. It
// reads r to its end: a file with anything after the snapshot, a checksum
// that does not match or a truncated stream is an error wrapping
// ErrFormat; a file past a limit, a LimitError (which wraps ErrLimit).
func (o ReadOptions) Read(r io.Reader) (*cluster.Snapshot, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	b := &budget{opts: o}
	head, _ := br.Peek(len(Kind))
	if bytes.Equal(head, []byte(Kind)) {
		br.Discard(len(Kind))
		return readV2(br, b)
	}
	return readV1(br, b)
}

// ReadFile reads the snapshot at path within o's limits.
func (o ReadOptions) ReadFile(path string) (*cluster.Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading snapshot: %w", err)
	}
	defer f.Close()
	s, err := o.Read(f)
	if err != nil {
		return nil, fmt.Errorf("reading snapshot %s: %w", path, err)
	}
	return s, nil
}
