package collector_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/collector"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// inventory is one priced node with one pod holding a GPU since t0.
type inventory struct{ s *cluster.Snapshot }

func (i inventory) Inventory(context.Context, time.Time, time.Duration) (*cluster.Snapshot, error) {
	return i.s, nil
}
func (inventory) Health() error { return nil }

func oneNode(t0 time.Time) *cluster.Snapshot {
	n := clustertest.Node("gpu-1").GPUs(2, "H100-80GB").Instance("p5.48xlarge", "on-demand").Obj()
	n.Cloud, n.Region, n.Created = "aws", "us-east-1", t0.Add(-24*time.Hour)
	p := clustertest.Pod("ml", "train-0").On("gpu-1").Owner("Job", "train").Holds("gpu-1/gpu0", -1, 0).Obj()
	p.Start = t0.Add(-24 * time.Hour)
	return &cluster.Snapshot{Window: cluster.Window{Start: t0.Add(-24 * time.Hour), End: t0}, Source: "test",
		Nodes: []cluster.Node{n}, Pods: []cluster.Pod{p}}
}

// usage reads nothing measured, or fails when fail is set.
type usage struct {
	fail  atomic.Bool
	reads atomic.Int32
}

func (u *usage) ReadUsage(_ context.Context, w cluster.Window) (*app.SnapshotResult, error) {
	u.reads.Add(1)
	if u.fail.Load() {
		return nil, &app.Error{Kind: app.Unreachable, Err: errors.New("prometheus: connection refused")}
	}
	prep, err := app.Prepare(&cluster.Snapshot{Window: w, Source: "test"})
	if err != nil {
		return nil, err
	}
	return &app.SnapshotResult{Snapshot: prep}, nil
}

func options() collector.Options {
	return collector.Options{Cluster: "c1", Inventory: collector.InventoryKube, Window: 4 * time.Hour,
		Interval: 10 * time.Minute, HistoryPath: ":memory:", MaxWorkloads: 10, Version: "test"}
}

// A cycle reads the window's intervals, records each in the history and
// publishes a state (its generation to the hook); a failing source keeps
// that state, marked stale, and reads again from where it stopped.
func TestCyclePublishesAndAFailureKeepsTheLastState(t *testing.T) {
	t0 := time.Date(2026, 11, 12, 12, 0, 0, 0, time.UTC)
	now := t0
	u := &usage{}
	var published []uint64
	c, err := collector.New(context.Background(), options(), collector.Deps{App: app.New(func() time.Time { return now }),
		Inventory: inventory{oneNode(t0)}, Usage: u, OnPublish: func(g uint64) { published = append(published, g) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.State() != nil {
		t.Fatal("a state before the first cycle")
	}
	if got := c.Mode(); got != "inventory kube, usage prometheus" {
		t.Errorf("Mode = %q", got)
	}
	if err := c.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := c.State()
	if st == nil || st.Generation != 1 || st.Stale != nil || st.Partial() != nil {
		t.Fatalf("state after one cycle: %+v", st)
	}
	if want := (cluster.Window{Start: t0.Add(-4 * time.Hour), End: t0}); st.Window != want {
		t.Errorf("window %s, want %s", st.Window, want)
	}
	if u.reads.Load() != 4 { // the 4 h window, one read per hour
		t.Errorf("%d interval reads, want 4", u.reads.Load())
	}
	if st.Report == nil || st.Audit == nil || st.Frame == nil || st.Frame.Totals.Workloads() != 1 {
		t.Errorf("state lacks the default results or the counters: %+v", st)
	}
	series, err := c.History().Series(context.Background(), app.HistorySeriesRequest{Cluster: "c1", Kind: tally.Namespace,
		From: t0.Add(-4 * time.Hour), To: t0, Step: app.HistoryHourly})
	if err != nil {
		t.Fatal(err)
	}
	if series.Coverage.Seconds != 4*3600 || len(series.Points) == 0 {
		t.Errorf("history after one cycle: coverage %v s, %d points; want 4 h recorded", series.Coverage.Seconds, len(series.Points))
	}

	now = t0.Add(20 * time.Minute)
	u.fail.Store(true)
	if err := c.Cycle(context.Background()); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("failing cycle: %v, want the source's error", err)
	}
	stale := c.State()
	if stale.Generation != 2 || stale.Stale == nil || !stale.Built.Equal(st.Built) || !stale.Checked.Equal(now) || stale.Report != st.Report {
		t.Errorf("after a failure: generation %d, stale %v, built %s, checked %s; want the last results marked stale", stale.Generation, stale.Stale, stale.Built, stale.Checked)
	}
	if !stale.Frame.Partial || st.Frame.Partial {
		t.Error("the stale state's frame is not marked partial, or the published one was changed")
	}

	u.fail.Store(false)
	reads := u.reads.Load()
	if err := c.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := u.reads.Load() - reads; got != 1 {
		t.Errorf("%d reads after recovering, want the one interval not read yet (12:00-12:20)", got)
	}
	if st := c.State(); st.Generation != 3 || st.Stale != nil || st.Window.End != now {
		t.Errorf("after recovering: %+v", st)
	}
	if want := []uint64{1, 2, 3}; len(published) != 3 || published[0] != 1 || published[2] != 3 {
		t.Errorf("published generations %v, want %v", published, want)
	}
}

// A cycle that records prunes the history to the retention: hourly rows
// older than HourlyRetention are gone, newer ones kept.
func TestCyclePrunesTheHistoryToItsRetention(t *testing.T) {
	t0 := time.Date(2026, 11, 12, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		retention time.Duration
		wantSecs  float64
	}{{0, 4 * 3600}, {2 * time.Hour, 2 * 3600}} {
		o := options()
		o.HourlyRetention, o.DailyRetention = tt.retention, tt.retention
		c, err := collector.New(context.Background(), o, collector.Deps{App: app.New(func() time.Time { return t0 }),
			Inventory: inventory{oneNode(t0)}, Usage: &usage{}})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
		series, err := c.History().Series(context.Background(), app.HistorySeriesRequest{Cluster: "c1", Kind: tally.Namespace,
			From: t0.Add(-4 * time.Hour), To: t0, Step: app.HistoryHourly})
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if series.Coverage.Seconds != tt.wantSecs {
			t.Errorf("retention %s: the history covers %v s of the 4 h window, want %v", tt.retention, series.Coverage.Seconds, tt.wantSecs)
		}
	}
}

// The cycle's savings ledger (the report's savings lines and the ledger
// gauges on /metrics) uses the service's --policy: a policy whose
// commitments section gives other discounts changes the commit lever's
// saving, and SetPolicies (SIGHUP) swaps it for the next cycle.
func TestTheCyclesLedgerUsesThePolicy(t *testing.T) {
	t0 := time.Date(2026, 11, 12, 12, 0, 0, 0, time.UTC)
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte("commitments:\n  discount1y: 0.6\n  discount3y: 0.7\n  capOfMean: 0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pols, err := app.LoadPolicies(file)
	if err != nil {
		t.Fatal(err)
	}
	commitSaving := func(st *collector.State) float64 {
		t.Helper()
		if st == nil || st.Report == nil || st.Report.Ledger == nil {
			t.Fatalf("no ledger in the state: %+v (ledger error %v)", st, st.Report.LedgerErr)
		}
		sum := 0.0
		for _, a := range st.Report.Ledger.Actions {
			if a.Lever == lever.LeverCommit {
				sum += a.SavingUSDMonth
			}
		}
		return sum
	}
	// A year's commitment needs 72 h of history: the node and its pod
	// are four days old, the window as long.
	snap := oneNode(t0)
	snap.Window.Start = t0.Add(-96 * time.Hour)
	snap.Nodes[0].Created, snap.Pods[0].Start = snap.Window.Start, snap.Window.Start
	cycle := func(p *app.Policies) *collector.Collector {
		o := options()
		o.Window, o.Policies = 96*time.Hour, p
		c, err := collector.New(context.Background(), o, collector.Deps{App: app.New(func() time.Time { return t0 }),
			Inventory: inventory{snap}, Usage: &usage{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if err := c.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
		return c
	}
	def := commitSaving(cycle(nil).State())
	if def <= 0 {
		t.Fatalf("the default ledger's commit saving is %v: the fixture has nothing to commit", def)
	}
	c := cycle(pols)
	if got := commitSaving(c.State()); got <= def {
		t.Errorf("commit saving with the policy's 60%%/70%% discounts = %v, want more than the defaults' %v", got, def)
	}
	c.SetPolicies(nil)
	if err := c.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := commitSaving(c.State()); got != def {
		t.Errorf("after SetPolicies(nil) the commit saving is %v, want the defaults' %v", got, def)
	}
}

// The watcher's Kueue section reaches the state: the window's report
// has the per-queue figures and the metrics frame carries them (the
// gpuwise_window_kueue_* families).
func TestCycleCarriesKueue(t *testing.T) {
	t0 := time.Date(2026, 11, 12, 12, 0, 0, 0, time.UTC)
	s := oneNode(t0)
	s.Kueue = &cluster.KueueInfo{
		ClusterQueues: []cluster.ClusterQueue{{Name: "team-a", Admitted: 1,
			Quotas: []cluster.QueueQuota{{Flavor: "h100", Resource: "nvidia.com/gpu", Nominal: 4, Used: 1}}}},
		LocalQueues: []cluster.LocalQueue{{Namespace: "ml", Name: "batch", ClusterQueue: "team-a"}},
		Workloads: []cluster.QueuedWorkload{{Namespace: "ml", Name: "job-train", Queue: "batch", ClusterQueue: "team-a",
			Owner: cluster.Owner{Kind: "Job", Name: "train"}, Created: t0.Add(-25 * time.Hour), Admitted: t0.Add(-24 * time.Hour),
			GPUs: map[string]int64{"nvidia.com/gpu": 1}, Pods: []string{"ml/train-0"}}},
	}
	c, err := collector.New(context.Background(), options(), collector.Deps{App: app.New(func() time.Time { return t0 }),
		Inventory: inventory{s}, Usage: &usage{}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	k := c.State().Frame.Kueue
	if k == nil || len(k.Queues) != 1 {
		t.Fatalf("frame's Kueue report: %+v", k)
	}
	// The 4 h window: the workload was admitted the whole of it, with one GPU.
	if q := k.Queues[0]; q.Name != "team-a" || q.NominalGPUs != 4 || q.AdmittedGPUHours != 4 || q.HeldGPUHours != 4 {
		t.Errorf("queue %+v, want team-a: 4 GPUs nominal, 4 GPU-hours admitted and held", q)
	}
}

// What the inventory could not read (its snapshot's partial notes: a
// forbidden API) makes the published state partial with those notes, is
// in the window's report and controls as in the inventory, and each
// interval recorded counts as partial in the history.
func TestInventoryPartialNotesMakeTheStatePartial(t *testing.T) {
	t0 := time.Date(2026, 11, 12, 12, 0, 0, 0, time.UTC)
	inv := oneNode(t0)
	note := "watching nodepools.karpenter.sh is forbidden (grant list and watch on it, see docs/rbac.md): progress cannot see the autoscaler objects, only their effect"
	inv.Partial = []string{note}
	inv.Controls = &cluster.Controls{Read: []string{cluster.ResourceHPA}, Autoscalers: []cluster.Autoscaler{{Kind: cluster.KindHPA, Namespace: "ml", Name: "train"}}}
	c, err := collector.New(context.Background(), options(), collector.Deps{App: app.New(func() time.Time { return t0 }),
		Inventory: inventory{inv}, Usage: &usage{}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := c.State()
	if st.Stale != nil || st.Partial() == nil || !strings.Contains(st.Partial().Error(), note) || !st.Frame.Partial {
		t.Errorf("state partial %v (frame %v), want the inventory's note", st.Partial(), st.Frame.Partial)
	}
	if got := st.Report.Report.Partial; len(got) != 1 || got[0] != note {
		t.Errorf("report's partial %q, want the inventory's", got)
	}
	if got := st.Snapshot.Prepared.View().Controls; got != inv.Controls {
		t.Errorf("window's controls %+v, want the inventory's", got)
	}
	series, err := c.History().Series(context.Background(), app.HistorySeriesRequest{Cluster: "c1", Kind: tally.Namespace,
		From: t0.Add(-4 * time.Hour), To: t0, Step: app.HistoryHourly})
	if err != nil {
		t.Fatal(err)
	}
	if series.Coverage.Cycles != 4 || series.Coverage.Partial != 4 {
		t.Errorf("history coverage %+v, want 4 cycles, each partial", series.Coverage)
	}
}
