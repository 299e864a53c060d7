package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// bigNode is the node of issue 16's bit flip: 192 cores.
func bigNodeSnapshot() *cluster.Snapshot {
	s := sample()
	s.Nodes[0] = ct.Node("n1").Resources(192, 2048).GPUs(1, "H100-80GB").Obj()
	return s
}

// Issue 16 item 1: version 1 files that are corrupt in ways a JSON decoder
// that stops after one value never sees. Each was accepted (exit 0).
func TestReadRejectsCorruptGzip(t *testing.T) {
	t.Parallel()
	good := encodeV1(t, bigNodeSnapshot(), gzip.DefaultCompression)
	stored := encodeV1(t, bigNodeSnapshot(), gzip.NoCompression)
	plain, _ := json.Marshal(document{Kind: Kind, Version: 1, Snapshot: bigNodeSnapshot()})
	tests := []struct {
		name, wantErr string
		data          []byte
	}{
		{"bad CRC", "checksum", flip(good, len(good)-8)},
		{"bad length in the trailer", "checksum", flip(good, len(good)-2)},
		{"missing trailer", "unexpected EOF", good[:len(good)-8]},
		{"half a trailer", "unexpected EOF", good[:len(good)-3]},
		{"garbage after the gzip stream", "data after the gzip stream", cat(good, []byte("garbage"))},
		{"a second gzip stream", "data after the gzip stream", cat(good, good)},
		{"a second JSON document inside the gzip stream", "data after the snapshot's JSON document", gz(t, cat(plain, plain))},
		{"garbage after the JSON inside the gzip stream", "data after the snapshot's JSON document", gz(t, cat(plain, []byte("\n}")))},
		{"a second JSON document, plain", "data after the snapshot's JSON document", cat(plain, []byte(" {}"))},
		{"cpu_milli 192000 flipped to 992000 in a stored block", "checksum", flipDigit(t, stored)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tt.data))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Read = %v, want ErrFormat containing %q", err, tt.wantErr)
			}
		})
	}
	// What a version 1 writer produced is still read: one gzip stream
	// holding one JSON document and a newline, or plain JSON with spaces.
	for _, ok := range [][]byte{good, stored, plain, cat([]byte(" \n"), plain, []byte("\r\n\t "))} {
		if s, err := Read(bytes.NewReader(ok)); err != nil || s.Nodes[0].CPUMilli != 192000 {
			t.Errorf("a valid version 1 file: %v", err)
		}
	}
}

// flipDigit turns the stored block's "cpu_milli":192000 into 992000, the
// flip of issue 16 that changed the report's dollars.
func flipDigit(t *testing.T, stored []byte) []byte {
	t.Helper()
	i := bytes.Index(stored, []byte(`"cpu_milli":192000`))
	if i < 0 {
		t.Fatal("no cpu_milli 192000 in the stored gzip")
	}
	out := bytes.Clone(stored)
	out[i+len(`"cpu_milli":`)] = '9'
	return out
}

func flip(b []byte, i int) []byte {
	out := bytes.Clone(b)
	out[i] ^= 0x10
	return out
}

func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// Every single-bit error anywhere in a version 2 file is caught (CRC-32C
// detects all of them), and so is every truncation.
func TestReadV2RejectsEveryBitFlipAndTruncation(t *testing.T) {
	t.Parallel()
	data := encodeV2(t, bigNodeSnapshot())
	for i := range data {
		for bit := range 8 {
			bad := bytes.Clone(data)
			bad[i] ^= 1 << bit
			if _, err := Read(bytes.NewReader(bad)); !errors.Is(err, ErrFormat) {
				t.Fatalf("bit %d of byte %d flipped: Read = %v, want ErrFormat", bit, i, err)
			}
		}
	}
	for n := range len(data) {
		if _, err := Read(bytes.NewReader(data[:n])); !errors.Is(err, ErrFormat) {
			t.Fatalf("truncated to %d of %d bytes: Read = %v, want ErrFormat", n, len(data), err)
		}
	}
}

func TestReadV2RejectsBrokenContainers(t *testing.T) {
	t.Parallel()
	s := randomSnapshot(testRand(), 2*nodesPerFrame, 3*podsPerFrame)
	s.Hourly = nil // no hourly frames: header, 2 node frames, 3 pod frames, end
	data := encodeV2(t, s)
	spans := frameSpans(t, data)
	if len(spans) != 1+2+3+1 {
		t.Fatalf("%d frames, want 7", len(spans))
	}
	frameAt := func(k int) []byte { return data[spans[k][0] : spans[k][0]+spans[k][1]] }
	head := data[:spans[0][0]]
	swapped := cat(head, frameAt(0), frameAt(1), frameAt(3), frameAt(2))
	for k := 4; k < len(spans); k++ {
		swapped = cat(swapped, frameAt(k))
	}
	var dropped []byte
	for k := range spans {
		if k != 4 {
			dropped = cat(dropped, frameAt(k))
		}
	}
	future := cat([]byte(Kind), binary.AppendUvarint(nil, Version+1), data[len(head):])
	codec := bytes.Clone(data)
	codec[spans[0][0]+1] = 7
	tests := []struct {
		name, wantErr string
		data          []byte
	}{
		{"data after the end frame", "data after the end of the snapshot", cat(data, []byte{0})},
		{"a second snapshot appended", "data after the end of the snapshot", cat(data, data)},
		{"two frames swapped", "frames missing, repeated or out of order", swapped},
		{"a frame dropped", "frames missing, repeated or out of order", cat(head, dropped)},
		{"a frame repeated", "frames missing, repeated or out of order", cat(data[:spans[3][0]], frameAt(2), data[spans[3][0]:])},
		{"no end frame", "truncated", data[:spans[len(spans)-1][0]]},
		{"a future version", fmt.Sprintf("version %d is not supported", Version+1), future},
		{"an unknown codec", "unknown codec", resum(codec)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tt.data))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Read = %v, want ErrFormat containing %q", err, tt.wantErr)
			}
		})
	}
}
