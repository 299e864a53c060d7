package snapshot

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/sim"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// Every field of every cluster type, filled at random (nil, empty and
// full slices and maps, zero and zoned times, extreme integers, -0,
// accumulators at every resolution), survives the current version unchanged.
func TestRoundTripRandomSnapshots(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 4))
	for trial := range 150 {
		nodes, pods := rng.IntN(4), rng.IntN(6)
		if trial%75 == 0 { // several frames of each
			nodes, pods = 3*nodesPerFrame+7, 2*podsPerFrame+1
		}
		want := randomSnapshot(rng, nodes, pods)
		got := mustRead(t, encodeV2(t, want))
		if w, g := snapshotJSON(t, want), snapshotJSON(t, got); w != g {
			t.Fatalf("trial %d: a field does not survive version %d; add it to the codec (write.go, nodes.go, pods.go, hourly.go) (-want +got):\n%s", trial, Version, cmp.Diff(w, g))
		}
		if trial%10 == 0 {
			sameAccumulators(t, want, got)
		}
		// Old format -> new format: what version 1 gave, version 2 keeps.
		fromOld := mustRead(t, encodeV1(t, want, gzip.BestSpeed))
		if o, n := snapshotJSON(t, fromOld), snapshotJSON(t, mustRead(t, encodeV2(t, fromOld))); o != n {
			t.Fatalf("trial %d: version 1 -> version 2 changed the snapshot (-old +new):\n%s", trial, cmp.Diff(o, n))
		}
	}
}

// sameAccumulators checks the accumulators' whole state, beyond what
// their JSON shows (resolution and bucket layout).
func sameAccumulators(t *testing.T, want, got *cluster.Snapshot) {
	t.Helper()
	gauges := func(a, b *usage.Gauge) bool {
		if a == nil || b == nil {
			return a == b
		}
		return cmp.Equal(a.State(), b.State())
	}
	acts := func(a, b *usage.Activity) bool {
		if a == nil || b == nil {
			return a == b
		}
		return cmp.Equal(a.State(), b.State())
	}
	for i := range want.Pods {
		for j, c := range want.Pods[i].Containers {
			g := got.Pods[i].Containers[j]
			if !gauges(c.CPU, g.CPU) || !gauges(c.Memory, g.Memory) {
				t.Fatalf("pod %d container %d: gauge state differs", i, j)
			}
		}
		for j, h := range want.Pods[i].GPUs {
			g := got.Pods[i].GPUs[j]
			if !acts(h.Activity, g.Activity) || !acts(h.SMActive, g.SMActive) || !gauges(h.FramebufferMiB, g.FramebufferMiB) {
				t.Fatalf("pod %d holding %d: accumulator state differs", i, j)
			}
		}
	}
}

// A snapshot in the old format (version 1, gzip JSON), rewritten in the new
// one, gives the same report to the byte; its bytes are deterministic.
func TestOldFormatToNewGivesTheSameReport(t *testing.T) {
	t.Parallel()
	for _, cfg := range simConfigs() {
		t.Run(fmt.Sprintf("seed %d scale %d", cfg.Seed, cfg.Scale), func(t *testing.T) {
			s, err := sim.Generate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			old := encodeV1(t, s, gzip.DefaultCompression)
			fromOld := mustRead(t, old)
			v2 := encodeV2(t, fromOld)
			if again := encodeV2(t, mustRead(t, old)); !bytes.Equal(v2, again) {
				t.Error("writing the same snapshot twice gives different bytes")
			}
			fromNew := mustRead(t, v2)
			if diff := cmp.Diff(snapshotJSON(t, fromOld), snapshotJSON(t, fromNew)); diff != "" {
				t.Fatalf("snapshot changed (-old +new):\n%s", diff)
			}
			if diff := cmp.Diff(reportJSON(t, fromOld), reportJSON(t, fromNew)); diff != "" {
				t.Errorf("report changed (-old +new):\n%s", diff)
			}
		})
	}
}

func simConfigs() []sim.Config {
	var cfgs []sim.Config
	for _, sc := range [][2]int{{1, 1}, {3, 2}} {
		cfg := sim.DefaultConfig()
		cfg.Seed, cfg.Scale = uint64(sc[0]), sc[1]
		cfgs = append(cfgs, cfg)
	}
	return cfgs
}

// An empty snapshot and one without nodes or pods keep nil and empty
// lists apart, as JSON does.
func TestRoundTripEmptyLists(t *testing.T) {
	t.Parallel()
	for _, s := range []*cluster.Snapshot{{}, {Nodes: []cluster.Node{}, Pods: []cluster.Pod{}, Notes: []string{}}} {
		got := mustRead(t, encodeV2(t, s))
		if diff := cmp.Diff(snapshotJSON(t, s), snapshotJSON(t, got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}

// The reader trusts that no node or pod takes fewer than minItemBytes.
func TestSmallestItemsTakeMinItemBytes(t *testing.T) {
	t.Parallel()
	n, p := newEncoder(), newEncoder()
	n.node(&cluster.Node{})
	p.pod(&cluster.Pod{})
	if len(n.body) < minItemBytes || len(p.body) < minItemBytes {
		t.Errorf("an empty node takes %d bytes, an empty pod %d; the reader assumes at least %d", len(n.body), len(p.body), minItemBytes)
	}
}

// A writer that fails stops Write at once with its error, whichever frame
// it fails on (the frames after it are being encoded in parallel).
func TestWriteReturnsTheWritersError(t *testing.T) {
	t.Parallel()
	s := randomSnapshot(testRand(), nodesPerFrame+1, 4*podsPerFrame)
	full := len(encodeV2(t, s))
	for _, after := range []int{0, 10, 100, full / 2, full - 1} {
		err := Write(&failingWriter{left: after}, s)
		if !errors.Is(err, errDiskFull) {
			t.Errorf("writer failing after %d of %d bytes: Write = %v, want the writer's error", after, full, err)
		}
	}
}

var errDiskFull = errors.New("disk full")

type failingWriter struct{ left int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, errDiskFull
	}
	w.left -= len(p)
	return len(p), nil
}

// The unknown facts trail the header (issue 26.1): they come back, and a
// snapshot without any is written as before (no trailing list).
func TestRoundTripUnknownFacts(t *testing.T) {
	t.Parallel()
	s := &cluster.Snapshot{Source: "prometheus x", Unknown: []string{cluster.FactNodeAffinity, cluster.FactTolerations}}
	got := mustRead(t, encodeV2(t, s))
	if diff := cmp.Diff(s.Unknown, got.Unknown); diff != "" {
		t.Errorf("unknown facts (-want +got):\n%s", diff)
	}
	known := *s
	known.Unknown = nil
	if a, b := len(encodeV2(t, &known)), len(encodeV2(t, s)); a >= b {
		t.Errorf("without unknown facts %d bytes, with %d: want the list only when there is one", a, b)
	}
	if got := mustRead(t, encodeV2(t, &known)); got.Unknown != nil {
		t.Errorf("unknown %q read from a snapshot that knows every fact", got.Unknown)
	}
}
