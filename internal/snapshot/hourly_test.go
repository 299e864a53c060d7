package snapshot

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// v2Fixture is an early version 2 file, before the partial list joined
// its header: six simulated hours (main at 6b02be2, `gpuwise demo
// --window 6h --save`).
const v2Fixture = "testdata/demo-6h.v2.snap"

// v2PartialFixture is a version 2 file from main's later writer, which
// puts the partial list after the notes and each node's pod slots
// (Node.Pods) after its times (main at 9b21ad7: six simulated hours of
// seed 1, the first node given 58 pod slots, one partial line,
// snapshot.Write).
const v2PartialFixture = "testdata/demo-6h-partial.v2.snap"

// TestVersion2StillReads: both version 2 layouts read (no hourly series,
// end reasons or checkpoint hints: they have none; the partial list and
// pod slots where the file has them), and written again as version 3
// read back to the same snapshot and report. The later layout is a
// regression test: this branch read only the early one.
func TestVersion2StillReads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file     string
		partial  []string
		podSlots int
	}{
		{v2Fixture, nil, 0},
		{v2PartialFixture, []string{"DCGM usage of 1 node(s) could not be read (fixture): their GPU pods are unmeasured"}, 58},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			old := version2ReadsAsVersion3(t, tt.file, tt.partial)
			if got := old.Nodes[0].Pods; got != tt.podSlots {
				t.Errorf("first node's pod slots %d, want %d", got, tt.podSlots)
			}
		})
	}
}

func version2ReadsAsVersion3(t *testing.T, file string, partial []string) *cluster.Snapshot {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := binary.Uvarint(data[len(Kind):]); v != 2 {
		t.Fatalf("%s is version %d, want 2", file, v)
	}
	old := mustRead(t, data)
	if old.Hourly != nil || len(old.Pods) == 0 {
		t.Fatalf("version 2 read: hourly %v, %d pods", old.Hourly != nil, len(old.Pods))
	}
	if diff := cmp.Diff(partial, old.Partial); diff != "" {
		t.Errorf("partial list (-want +got):\n%s", diff)
	}
	again := mustRead(t, encodeV2(t, old))
	if diff := cmp.Diff(snapshotJSON(t, old), snapshotJSON(t, again)); diff != "" {
		t.Fatalf("version 2 -> 3 changed the snapshot (-v2 +v3):\n%s", diff)
	}
	if diff := cmp.Diff(reportJSON(t, old), reportJSON(t, again)); diff != "" {
		t.Errorf("version 2 -> 3 changed the report (-v2 +v3):\n%s", diff)
	}
	return old
}

// TestHourlySeriesRoundTrip: the simulator's hourly series, interruptions
// and checkpoint hints come back bit for bit (NaN hours included), and
// the series take about 4 bytes a value on disk before compression.
func TestHourlySeriesRoundTrip(t *testing.T) {
	t.Parallel()
	s, err := sim.Generate(sim.Config{Seed: 2, Scale: 2, Window: 72 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, encodeV2(t, s))
	nan := cmp.Comparer(func(a, b float32) bool { return a == b || (a != a && b != b) })
	if diff := cmp.Diff(s.Hourly, got.Hourly, nan); diff != "" {
		t.Fatalf("hourly series changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(cluster.Interruptions(s), cluster.Interruptions(got)); diff != "" {
		t.Errorf("interruptions changed (-want +got):\n%s", diff)
	}
	var hints int
	for i := range s.Pods {
		if s.Pods[i].CheckpointSeconds != got.Pods[i].CheckpointSeconds || s.Pods[i].EndReason != got.Pods[i].EndReason {
			t.Errorf("%s: checkpoint/end reason %d %q, want %d %q", s.Pods[i].Key(), got.Pods[i].CheckpointSeconds, got.Pods[i].EndReason,
				s.Pods[i].CheckpointSeconds, s.Pods[i].EndReason)
		}
		if s.Pods[i].CheckpointSeconds > 0 {
			hints++
		}
	}
	if hints == 0 || len(got.Hourly.Workloads) == 0 {
		t.Errorf("%d hints, %d workloads: the fixture should have both", hints, len(got.Hourly.Workloads))
	}
	models := 0
	for _, w := range got.Hourly.Workloads {
		models += len(w.Models)
	}
	if models == 0 {
		t.Error("no per-model serving series round-tripped: the fixture should have some (version 5)")
	}
}

// TestHourlyFramesRejectCorruption: a frame too short for the workloads
// its header promises, or a series longer than its frame, is a format
// error, not an allocation.
func TestHourlyFramesRejectCorruption(t *testing.T) {
	t.Parallel()
	e := newEncoder()
	e.str("ns/Job/j")
	e.varint(0)
	e.str("")
	e.uvarint(1 << 30) // pods: a billion hours in a few bytes
	d := &decoder{b: e.payload(), budget: &budget{opts: DefaultReadOptions()}, version: Version}
	d.table(DefaultMaxStringBytes)
	d.workloadHours()
	if d.err == nil || !strings.Contains(d.err.Error(), "more than the frame holds") {
		t.Errorf("a billion hours: %v, want a format error", d.err)
	}
	data := encodeV2(t, &cluster.Snapshot{Window: cluster.Window{Start: time.Unix(0, 0), End: time.Unix(3600, 0)},
		Hourly: &cluster.Hourly{IdleThreshold: 0.1, Workloads: []cluster.WorkloadHours{{Workload: "a/Pod/p", Pods: cluster.Series{1}}}}})
	spans := frameSpans(t, data)
	h := spans[len(spans)-2] // the hourly frame
	f, err := readFrame(bytes.NewReader(data[h[0]:h[0]+h[1]]), uint32(len(spans)-2), nil, maxFrameBytes)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := decompress(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	short := cat(data[:h[0]], appendFrame(nil, frame{typ: frameHourly, index: f.index, rawLen: 3, stored: raw[:3]}), data[h[0]+h[1]:])
	if _, err := Read(bytes.NewReader(short)); err == nil || !strings.Contains(err.Error(), "cannot hold 1 workloads") {
		t.Errorf("a truncated hourly frame: %v, want a format error", err)
	}
}

// TestHourlySeriesReadBackNilEmptyAndCapped: series read from the shared
// slab keep nil (not measured) apart from empty, and each is capped at its
// length, so appending to one never writes into the next.
func TestHourlySeriesReadBackNilEmptyAndCapped(t *testing.T) {
	t.Parallel()
	s := randomSnapshot(testRand(), 1, 2)
	s.Hourly = &cluster.Hourly{IdleThreshold: 0.1, Workloads: []cluster.WorkloadHours{
		{Workload: "a/Deployment/empty", Pods: cluster.Series{}, GPUHeld: cluster.Series{}, GPUMeasured: cluster.Series{}},
		{Workload: "b/Deployment/two", From: 1, Pods: cluster.Series{1, 2}, GPUHeld: cluster.Series{3, 4}, GPUMeasured: cluster.Series{5, 6}},
	}}
	got := mustRead(t, encodeV2(t, s)).Hourly
	if diff := cmp.Diff(s.Hourly, got); diff != "" {
		t.Fatalf("hourly series read back differ (-wrote +read):\n%s", diff)
	}
	empty, two := got.Workloads[0], got.Workloads[1]
	if empty.Pods == nil || empty.GPUActive != nil {
		t.Errorf("empty series read back nil (%v), or a nil one present (%v)", empty.Pods == nil, empty.GPUActive != nil)
	}
	_ = append(two.Pods, 99)
	if cap(two.Pods) != 2 || two.GPUHeld[0] != 3 {
		t.Errorf("series capacity %d, next series starts %v after an append: want 2 and 3", cap(two.Pods), two.GPUHeld[0])
	}
}

// v4Fixture is a version 4 file (main at 12f38e2, `gpuwise demo --window
// 6h --save`): before DRA and HAMi shares joined the format.
const v4Fixture = "testdata/demo-6h.v4.snap"

// TestVersion4StillReads: a version 4 file reads (no DRA section, no
// claims, no HAMi asks: it has none), with its hourly series, and written
// again as the current version reads back to the same snapshot and report.
func TestVersion4StillReads(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(v4Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := binary.Uvarint(data[len(Kind):]); v != 4 {
		t.Fatalf("%s is version %d, want 4", v4Fixture, v)
	}
	old := mustRead(t, data)
	if old.Hourly == nil || len(old.Pods) == 0 || old.DRA != nil {
		t.Fatalf("version 4 read: hourly %v, %d pods, DRA %v", old.Hourly != nil, len(old.Pods), old.DRA)
	}
	again := mustRead(t, encodeV2(t, old))
	if diff := cmp.Diff(snapshotJSON(t, old), snapshotJSON(t, again)); diff != "" {
		t.Fatalf("version 4 -> current changed the snapshot (-v4 +new):\n%s", diff)
	}
	if diff := cmp.Diff(reportJSON(t, old), reportJSON(t, again)); diff != "" {
		t.Errorf("version 4 -> current changed the report (-v4 +new):\n%s", diff)
	}
}

// v5Fixture is a version 5 file (main at 066d1c0, `gpuwise demo --window
// 6h --save`): before Kueue joined the format.
const v5Fixture = "testdata/demo-6h.v5.snap"

// TestVersion5StillReads: a version 5 file reads (no Kueue section: it
// has none), with its hourly series and DRA section as written, and
// written again as version 6 reads back to the same snapshot and report.
func TestVersion5StillReads(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(v5Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := binary.Uvarint(data[len(Kind):]); v != 5 {
		t.Fatalf("%s is version %d, want 5", v5Fixture, v)
	}
	old := mustRead(t, data)
	if old.Hourly == nil || len(old.Pods) == 0 || old.Kueue != nil {
		t.Fatalf("version 5 read: hourly %v, %d pods, Kueue %v", old.Hourly != nil, len(old.Pods), old.Kueue)
	}
	again := mustRead(t, encodeV2(t, old))
	if diff := cmp.Diff(snapshotJSON(t, old), snapshotJSON(t, again)); diff != "" {
		t.Fatalf("version 5 -> 6 changed the snapshot (-v5 +v6):\n%s", diff)
	}
	if diff := cmp.Diff(reportJSON(t, old), reportJSON(t, again)); diff != "" {
		t.Errorf("version 5 -> 6 changed the report (-v5 +v6):\n%s", diff)
	}
}

// v6Fixture is a version 6 file: testdata/demo-6h.v5.snap read and written
// by main at bc5f088 with a Kueue section added (one ClusterQueue, one
// LocalQueue): before the controls joined the format.
const v6Fixture = "testdata/demo-6h.v6.snap"

// TestVersion6StillReads: a version 6 file reads (no controls section: it
// has none), with its hourly series and Kueue section as written, and
// written again as the current version reads back to the same snapshot
// and report.
func TestVersion6StillReads(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(v6Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := binary.Uvarint(data[len(Kind):]); v != 6 {
		t.Fatalf("%s is version %d, want 6", v6Fixture, v)
	}
	old := mustRead(t, data)
	if old.Hourly == nil || len(old.Pods) == 0 || old.Controls != nil {
		t.Fatalf("version 6 read: hourly %v, %d pods, controls %v", old.Hourly != nil, len(old.Pods), old.Controls)
	}
	if old.Kueue == nil || len(old.Kueue.ClusterQueues) != 1 || old.Kueue.ClusterQueues[0].Quotas[0].Nominal != 8 || len(old.Kueue.LocalQueues) != 1 {
		t.Fatalf("version 6 read: Kueue %+v, want the fixture's queue (8 nominal GPUs) and local queue", old.Kueue)
	}
	again := mustRead(t, encodeV2(t, old))
	if diff := cmp.Diff(snapshotJSON(t, old), snapshotJSON(t, again)); diff != "" {
		t.Fatalf("version 6 -> %d changed the snapshot (-v6 +now):\n%s", Version, diff)
	}
	if diff := cmp.Diff(reportJSON(t, old), reportJSON(t, again)); diff != "" {
		t.Errorf("version 6 -> %d changed the report (-v6 +now):\n%s", Version, diff)
	}
}

// v7Fixture is demo-6h.v6.snap read and written by main at 648f348 (the
// controls' version, before the latency histograms), with a controls
// section added: an HPA, a ScaledObject, a NodePool, a bound gpuwise
// ValidatingAdmissionPolicy, VPAs not served.
const v7Fixture = "testdata/demo-6h.v7.snap"

// TestVersion7StillReads: a version 7 file reads with its controls and
// no latency histograms, and written again as the current version reads
// back to the same snapshot and report.
func TestVersion7StillReads(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(v7Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := binary.Uvarint(data[len(Kind):]); v != 7 {
		t.Fatalf("%s is version %d, want 7", v7Fixture, v)
	}
	old := mustRead(t, data)
	c := old.Controls
	if c == nil || len(c.Autoscalers) != 2 || len(c.NodePools) != 1 || len(c.Policies) != 1 || len(c.Bindings) != 1 ||
		!c.Knows(cluster.ResourceVPA) || c.Reads(cluster.ResourceVPA) {
		t.Fatalf("version 7 read: controls %+v, want the fixture's two autoscalers, NodePool, policy, binding and VPAs not served", c)
	}
	for _, w := range old.Hourly.Workloads {
		if w.Latency != nil {
			t.Fatalf("version 7 read: %s has a latency histogram, a version 7 file holds none", w.Workload)
		}
	}
	again := mustRead(t, encodeV2(t, old))
	if diff := cmp.Diff(snapshotJSON(t, old), snapshotJSON(t, again)); diff != "" {
		t.Fatalf("version 7 -> %d changed the snapshot (-v7 +now):\n%s", Version, diff)
	}
	if diff := cmp.Diff(reportJSON(t, old), reportJSON(t, again)); diff != "" {
		t.Errorf("version 7 -> %d changed the report (-v7 +now):\n%s", Version, diff)
	}
}

// The controls section survives the current version, every kind with its
// fields, and a snapshot without controls reads back without them.
func TestControlsRoundTrip(t *testing.T) {
	t.Parallel()
	s := sample()
	s.Controls = &cluster.Controls{Read: []string{cluster.ResourceHPA, cluster.ResourceNodePool},
		Autoscalers: []cluster.Autoscaler{{Kind: cluster.KindHPA, Namespace: "inference", Name: "chat", TargetKind: "Deployment", TargetName: "chat",
			MinReplicas: 1, MaxReplicas: 8, Metrics: []string{"External"}}, {Kind: cluster.KindVPA, Namespace: "ml", Name: "train", TargetKind: "Job", TargetName: "train", Mode: "Off"}},
		NodePools: []cluster.NodePool{{Name: "gpu-h100", InstanceTypes: []string{"p5.48xlarge"}, CapacityTypes: []string{"spot", "on-demand"},
			Labels: map[string]string{"gpuwise.io/gpu-pool": "gpu-h100"}, Taints: []cluster.Taint{{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}},
			ConsolidationPolicy: "WhenEmpty", ConsolidateAfter: "10m"}},
		Policies: []cluster.AdmissionPolicy{{Kind: cluster.KindVAP, Name: "gpuwise-pods", Labels: map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}},
			{Kind: cluster.KindKyvernoCluster, Name: "gpu-limits", Actions: []string{"Audit"}}},
		Bindings: []cluster.AdmissionBinding{{Name: "gpuwise-pods-warn", Policy: "gpuwise-pods", Actions: []string{"Warn", "Audit"}}}}
	got := mustRead(t, encodeV2(t, s))
	if diff := cmp.Diff(s.Controls, got.Controls); diff != "" {
		t.Errorf("controls changed (-want +got):\n%s", diff)
	}
	s.Controls = nil
	if got := mustRead(t, encodeV2(t, s)); got.Controls != nil {
		t.Errorf("no controls read back as %+v", got.Controls)
	}
}
