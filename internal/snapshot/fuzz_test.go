package snapshot

import (
	"bytes"
	"os"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// FuzzReadV2 fuzzes the version 2 decoder behind valid checksums: each
// input's frame checksums are recomputed before it is read, so a mutation
// inside a payload reaches the decoder instead of stopping at the CRC (the
// seeds' frames are stored uncompressed for the same reason). Whatever
// decodes must encode again to the same snapshot.
func FuzzReadV2(f *testing.F) {
	for _, s := range []*cluster.Snapshot{sample(), limitSnapshot(), randomSnapshot(testRand(), 2, 3), {}} {
		f.Add(uncompressed(f, encodeV2(f, s)))
	}
	for _, file := range []string{v2Fixture, v2PartialFixture} { // the previous version's two layouts
		if v2, err := os.ReadFile(file); err == nil {
			f.Add(uncompressed(f, v2))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(resum(bytes.Clone(data))))
		if err != nil {
			return
		}
		again := mustRead(t, encodeV2(t, s))
		if a, b := snapshotJSON(t, s), snapshotJSON(t, again); a != b {
			t.Fatalf("a decoded snapshot changes when written again:\n%s\n%s", a, b)
		}
	})
}

// uncompressed rewrites a version 2 file with every frame stored as is.
func uncompressed(t testing.TB, data []byte) []byte {
	t.Helper()
	spans := frameSpans(t, data)
	out := bytes.Clone(data[:spans[0][0]])
	for k, sp := range spans {
		f, err := readFrame(bytes.NewReader(data[sp[0]:sp[0]+sp[1]]), uint32(k), nil, maxFrameBytes)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := decompress(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = appendFrame(out, frame{typ: f.typ, codec: codecNone, index: f.index, rawLen: len(raw), stored: raw})
	}
	if _, err := Read(bytes.NewReader(out)); err != nil {
		t.Fatalf("the uncompressed seed does not read: %v", err)
	}
	return out
}
