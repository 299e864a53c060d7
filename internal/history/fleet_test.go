package history

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func fleetCycle(start time.Time, fleet ...FleetGPUs) Cycle {
	c := cycle(start, 20, map[string]float64{"a": 1})
	c.Fleet = fleet
	return c
}

func TestFleetKeepsEachBucketsLatestCycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "h.db"))
	whole8 := FleetGPUs{Model: "A100-80GB", Sharing: "exclusive", GPUs: 8}
	whole4 := FleetGPUs{Model: "A100-80GB", Sharing: "exclusive", GPUs: 4}
	mig4 := FleetGPUs{Model: "A100-80GB", Sharing: "mig", GPUs: 4}
	for _, c := range []Cycle{
		fleetCycle(t0, whole8),
		fleetCycle(t0.Add(40*time.Minute), whole4, mig4), // the hour's last cycle
		fleetCycle(t0.Add(20*time.Minute), whole8),       // recorded late: older than the fleet there
		fleetCycle(t0.Add(time.Hour), []FleetGPUs{}...),  // no GPUs at all: an empty fleet
		fleetCycle(t0.Add(2*time.Hour), mig4),
		cycle(t0.Add(2*time.Hour+20*time.Minute), 20, nil), // fleet not read: the hour keeps mig4
	} {
		if ok, err := s.Record(ctx, c); err != nil || !ok {
			t.Fatalf("cycle at %s: recorded %v, %v", c.Start, ok, err)
		}
	}
	q := Query{Cluster: "prod", From: t0, To: t0.Add(24 * time.Hour)}
	got, err := s.Fleet(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	want := []FleetPoint{{t0, whole4}, {t0, mig4}, {t0.Add(2 * time.Hour), mig4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hourly fleet (-want +got):\n%s", diff)
	}
	q.Granularity = Daily
	if got, err = s.Fleet(ctx, q); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]FleetPoint{{t0, mig4}}, got); diff != "" {
		t.Errorf("daily fleet (-want +got):\n%s", diff)
	}
}

func TestFleetSumsClustersAndIsPruned(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "h.db"))
	mig := FleetGPUs{Model: "H100-80GB", Sharing: "mig", GPUs: 2}
	for d := range 4 {
		for _, cl := range []string{"prod", "dev"} {
			c := fleetCycle(t0.Add(time.Duration(d)*24*time.Hour), mig)
			c.Cluster = cl
			if _, err := s.Record(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := Query{From: t0, To: t0.Add(10 * 24 * time.Hour)}
	got, err := s.Fleet(ctx, all)
	if err != nil || len(got) != 4 || got[0].GPUs != 4 {
		t.Fatalf("fleet of both clusters: %+v, %v (want 4 hours of 4 GPUs)", got, err)
	}
	if err := s.Prune(ctx, t0.Add(3*24*time.Hour), t0.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	hours, _ := s.Fleet(ctx, all)
	all.Granularity = Daily
	days, _ := s.Fleet(ctx, all)
	if len(hours) != 1 || len(days) != 3 {
		t.Errorf("%d hours and %d days of fleet left, want 1 and 3", len(hours), len(days))
	}
}

func TestAVersion1StoreGainsTheFleet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := migrations()
	if _, err := db.Exec(ms[0] + ";PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := open(t, path)
	if _, err := s.Record(ctx, fleetCycle(t0, FleetGPUs{Model: "L4", Sharing: "time-slicing", GPUs: 1})); err != nil {
		t.Fatal(err)
	}
	got, err := s.Fleet(ctx, Query{From: t0, To: t0.Add(time.Hour)})
	if v, _ := s.Version(ctx); err != nil || len(got) != 1 || v != SchemaVersion() {
		t.Errorf("after migrating from version 1: version %d, fleet %+v, %v", v, got, err)
	}
}
