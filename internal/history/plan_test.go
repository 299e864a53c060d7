package history

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/tracker"
)

// The plan and the marks survive closing and reopening the store.
func TestPlanSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := s.Plan(ctx, "c"); err != nil || p != nil {
		t.Fatalf("empty store: %v %v", p, err)
	}
	at := time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)
	p := &tracker.Plan{Cluster: "c", Updated: at, Observations: 3, Baseline: &tracker.Baseline{At: at.Add(-48 * time.Hour), Actions: []string{"consolidate-abc123"}},
		Actions: []*tracker.Action{{ID: "consolidate-abc123", Key: "consolidate:remove-nodes:p", Status: tracker.Partly, Detected: 3, Of: 10}}}
	if err := s.SavePlan(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Observations = 4
	if err := s.SavePlan(ctx, p); err != nil { // replaced, not added
		t.Fatal(err)
	}
	if err := s.AddMark(ctx, "c", MarkRow{Action: "consolidate-abc123", At: at, Status: "rejected", Note: "not now"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddMark(ctx, "c", MarkRow{Action: "consolidate-abc123", At: at.Add(time.Minute), Status: "applied"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, err := OpenExisting(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.Plan(ctx, "c")
	if err != nil || got == nil {
		t.Fatalf("%v %v", got, err)
	}
	if got.Observations != 4 || !got.Baseline.At.Equal(p.Baseline.At) || len(got.Actions) != 1 || got.Actions[0].Detected != 3 || got.Actions[0].Of != 10 {
		t.Errorf("read back %+v", got)
	}
	ms, err := r.Marks(ctx, "c")
	if err != nil || ms["consolidate-abc123"].Status != "applied" || !ms["consolidate-abc123"].At.Equal(at.Add(time.Minute)) {
		t.Errorf("marks %v %v, want the latest (applied)", ms, err)
	}
	if cs, err := r.PlanClusters(ctx); err != nil || len(cs) != 1 || cs[0] != "c" {
		t.Errorf("clusters %v %v", cs, err)
	}
}
