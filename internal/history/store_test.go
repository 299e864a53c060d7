package history

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func cycle(start time.Time, minutes int, keys map[string]float64) Cycle {
	c := Cycle{Cluster: "prod", Start: start, End: start.Add(time.Duration(minutes) * time.Minute)}
	for k, v := range keys {
		c.Entries = append(c.Entries, Entry{Kind: Workload, Key: k, Values: Values{Seconds: float64(minutes * 60), Pods: 2,
			GPUAllocatedHours: v, GPUActiveHours: v / 4, TotalUSD: 10 * v, OOMKills: 1}})
	}
	return c
}

func TestOpenMigratesAndRefusesANewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	s := open(t, path)
	if v, err := s.Version(ctx); err != nil || v != SchemaVersion() || v < 1 {
		t.Fatalf("version %d (%v), want %d", v, err, SchemaVersion())
	}
	s.Close()
	s = open(t, path) // reopening applies nothing
	if _, err := s.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") || !strings.Contains(err.Error(), path) {
		t.Errorf("Open of a newer store: %v", err)
	}
}

func TestRecordAddsIntoHoursAndDaysOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "h.db"))
	for i := range 12 { // two hours of 10-minute cycles, a 25-hour gap, one more
		start := t0.Add(time.Duration(i) * 10 * time.Minute)
		if i == 11 {
			start = t0.Add(27 * time.Hour)
		}
		ok, err := s.Record(ctx, cycle(start, 10, map[string]float64{"ml/Job/a": 1, "ml/Job/b": 2}))
		if err != nil || !ok {
			t.Fatalf("cycle %d: recorded %v, %v", i, ok, err)
		}
	}
	if ok, err := s.Record(ctx, cycle(t0, 10, map[string]float64{"ml/Job/a": 100})); ok || err != nil {
		t.Errorf("recording a cycle twice: recorded %v, %v", ok, err)
	}
	pts, err := s.Series(ctx, Query{Cluster: "prod", Kind: Workload, Key: "ml/Job/a", From: t0, To: t0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, p := range pts {
		got = append(got, p.GPUAllocatedHours)
	}
	if diff := cmp.Diff([]float64{6, 5, 1}, got); diff != "" {
		t.Errorf("hourly allocated GPU-hours (-want +got):\n%s", diff)
	}
	days, err := s.Totals(ctx, Query{Kind: Workload, From: t0, To: t0.Add(24 * time.Hour), Granularity: Daily})
	if err != nil {
		t.Fatal(err)
	}
	want := Values{Seconds: 11 * 600, Pods: 2, GPUAllocatedHours: 22, GPUActiveHours: 5.5, TotalUSD: 220, OOMKills: 11}
	if diff := cmp.Diff(want, days["ml/Job/b"]); diff != "" {
		t.Errorf("first day of ml/Job/b (-want +got):\n%s", diff)
	}
	cov, err := s.Coverage(ctx, "prod", t0, t0.Add(48*time.Hour))
	if err != nil || cov.Cycles != 12 || cov.Seconds != 12*600 || !cov.Last.Equal(t0.Add(27*time.Hour+10*time.Minute)) {
		t.Errorf("coverage %+v, %v", cov, err)
	}
}

func TestRecordRefusesCyclesAcrossTheHour(t *testing.T) {
	t.Parallel()
	s := open(t, InMemory)
	_, err := s.Record(context.Background(), cycle(t0.Add(55*time.Minute), 10, nil))
	if err == nil || !strings.Contains(err.Error(), "crosses the hour") {
		t.Errorf("err = %v", err)
	}
}

func TestPruneKeepsDaysLongerThanHours(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "h.db"))
	for d := range 10 {
		if _, err := s.Record(ctx, cycle(t0.Add(time.Duration(d)*24*time.Hour), 60, map[string]float64{"a": 1})); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Prune(ctx, t0.Add(8*24*time.Hour), t0.Add(3*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	all := Query{Kind: Workload, From: t0, To: t0.Add(30 * 24 * time.Hour)}
	hours, _ := s.Series(ctx, all)
	all.Granularity = Daily
	days, _ := s.Series(ctx, all)
	if len(hours) != 2 || len(days) != 7 {
		t.Errorf("%d hours and %d days left, want 2 and 7", len(hours), len(days))
	}
	if err := s.Check(ctx); err != nil {
		t.Error(err)
	}
}

func TestValuesUtilizationAndPriced(t *testing.T) {
	t.Parallel()
	if u := (Values{GPUAllocatedHours: 4, GPUUnmeasuredHours: 4}).Utilization(); u != nil {
		t.Errorf("utilization of unmeasured hours = %v, want nil", *u)
	}
	if u := (Values{GPUAllocatedHours: 4, GPUUnmeasuredHours: 2, GPUActiveHours: 1}).Utilization(); u == nil || math.Abs(*u-0.5) > 1e-12 {
		t.Errorf("utilization = %v, want 0.5", u)
	}
	if (Values{GPUAllocatedHours: 3, UnpricedGPUHours: 3}).Priced() {
		t.Error("a row with only unpriced hours says it is priced")
	}
}
