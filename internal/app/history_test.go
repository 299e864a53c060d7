package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/history"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// recorded is an in-memory history with hourly cycles of cluster c1 over
// [from, to): namespace "ml" allocating gpus GPUs, half of them active.
func recorded(t *testing.T, from, to time.Time, gpus float64) *app.History {
	t.Helper()
	h, err := app.OpenHistory(context.Background(), history.InMemory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	for s := from; s.Before(to); s = s.Add(time.Hour) {
		v := tally.Values{Seconds: 3600, Pods: 1, GPUAllocatedHours: gpus, GPUActiveHours: gpus / 2, TotalUSD: 10 * gpus}
		c := history.Cycle{Cluster: "c1", Start: s, End: s.Add(time.Hour), Entries: []history.Entry{{Kind: tally.Namespace, Key: "ml", Values: v}}}
		if _, err := h.Store().Record(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func TestHistorySeriesValidatesAndReads(t *testing.T) {
	t0 := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	h := recorded(t, t0, t0.Add(6*time.Hour), 2)
	_, err := h.Series(context.Background(), app.HistorySeriesRequest{Kind: "pods", Step: "week", From: t0, To: t0})
	for _, want := range []string{`kind: "pods" is not one of`, `step: "week" is not hour or day`, "to: 2026-11-10T00:00:00Z is not after from"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Series on a bad request: %v, want %q", err, want)
		}
	}
	if app.KindOf(err) != app.Usage {
		t.Errorf("a bad request is kind %v, want usage", app.KindOf(err))
	}
	if _, err := h.Series(context.Background(), app.HistorySeriesRequest{Kind: tally.Namespace, Step: app.HistoryHourly, From: t0, To: t0.Add(94 * 24 * time.Hour)}); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("94 days of hours: %v, want refused", err)
	}
	for _, cl := range []string{"c1", app.AllClusters, ""} {
		s, err := h.Series(context.Background(), app.HistorySeriesRequest{Cluster: cl, Kind: tally.Namespace, Step: app.HistoryHourly, From: t0, To: t0.Add(6 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if s.Cluster != cl || len(s.Points) != 6 || s.Coverage.Seconds != 6*3600 || s.Points[0].Utilization == nil || *s.Points[0].Utilization != 0.5 {
			t.Errorf("cluster %q: %d points, coverage %v s, first %+v; want 6 hours at 50%%", cl, len(s.Points), s.Coverage.Seconds, s.Points[0])
		}
	}
	if s, err := h.Series(context.Background(), app.HistorySeriesRequest{Cluster: "other", Kind: tally.Namespace, Step: app.HistoryHourly, From: t0, To: t0.Add(6 * time.Hour)}); err != nil || len(s.Points) != 0 {
		t.Errorf("another cluster: %v, %v; want no points", s, err)
	}
}

// Compare ends at the last recorded cycle unless told an end, and notes a
// side the history does not cover.
func TestHistoryCompareFromTheLastCycle(t *testing.T) {
	t0 := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	h := recorded(t, t0, t0.Add(4*time.Hour), 2)
	d, err := h.Compare(context.Background(), app.HistoryCompareRequest{Kind: tally.Namespace, Period: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Key != "ml" || len(d.Notes) != 0 {
		t.Fatalf("compare = %+v, want ml on both covered sides", d)
	}
	if !strings.Contains(d.After.Label, "2026-11-10T04:00:00Z") || !strings.Contains(d.Before.Label, "2026-11-10T00:00:00Z..2026-11-10T02:00:00Z") {
		t.Errorf("sides %q and %q, want the two hours before the last cycle's end and the two before them", d.Before.Label, d.After.Label)
	}
	d, err = h.Compare(context.Background(), app.HistoryCompareRequest{Cluster: "c1", Kind: tally.Namespace, End: t0.Add(5 * time.Hour), Period: 4 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Notes) != 2 {
		t.Errorf("notes %q, want both sides named as not fully covered", d.Notes)
	}
	if _, err := h.Compare(context.Background(), app.HistoryCompareRequest{Cluster: "none", Kind: tally.Namespace, Period: time.Hour}); err == nil || !strings.Contains(err.Error(), `no cycle for cluster "none"`) {
		t.Errorf("an unrecorded cluster: %v", err)
	}
	if _, err := h.Compare(context.Background(), app.HistoryCompareRequest{Kind: "pods"}); app.KindOf(err) != app.Usage || !strings.Contains(err.Error(), "period: 0s is not positive") {
		t.Errorf("a bad request: %v, want a usage error naming kind and period", err)
	}
}
