package packing

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// A GPU node deleted before the window's end (a reclaimed spot node) is
// not planned, and the plan says so: the report counts it, so without a
// note the two node counts disagree silently. Its live twin gets no note.
func TestFromSnapshotNotesNodesGoneBeforeTheEnd(t *testing.T) {
	s := &cluster.Snapshot{Window: ct.Window(24), Nodes: []cluster.Node{
		ct.Node("live").GPUs(1, "H100-80GB").Obj(),
		ct.Node("spot-1").Instance("test.gpu", cluster.Spot).GPUs(1, "H100-80GB").Life(time.Time{}, ct.At(12)).Obj(),
	}}
	prep, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromSnapshot(prep, SnapshotOptions{Shapes: CurrentShapes})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Nodes) != 1 || p.Nodes[0].Name != "live" {
		t.Errorf("planned nodes %v, want only live", p.Nodes)
	}
	want := "1 GPU node(s) were deleted before the window's end and are not in the plan, though the cost report (which covers the whole window) counts them: spot-1 (deleted 2026-01-01T12:00:00Z)"
	if !strings.Contains(strings.Join(p.Notes, "\n"), want) {
		t.Errorf("notes %q, want %q", p.Notes, want)
	}
	s.Nodes = s.Nodes[:1]
	if prep, err = cluster.Prepare(s); err != nil {
		t.Fatal(err)
	}
	p, err = FromSnapshot(prep, SnapshotOptions{Shapes: CurrentShapes})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(p.Notes, "\n"), "deleted before") {
		t.Errorf("notes %q for a snapshot with no deleted node", p.Notes)
	}
}
