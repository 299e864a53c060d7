package history

import (
	"context"
	"math"
	"testing"
	"time"
)

// FuzzHistoryReads feeds the store's reads (what serve's /api/v1/history
// and compare ask) arbitrary queries against a store with known content:
// an unknown granularity is an error, anything else answers without one;
// a key's hourly points add up to its total; nothing read is negative or
// non-finite, and no range holds more than was recorded.
func FuzzHistoryReads(f *testing.F) {
	ctx := context.Background()
	s, err := Open(ctx, InMemory)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	const recorded = 3.0 // GPU-hours a cycle gives each key
	for i := range 24 {
		if _, err := s.Record(ctx, cycle(t0.Add(time.Duration(i)*time.Hour), 60, map[string]float64{"ml/a": recorded, "ml/b": recorded})); err != nil {
			f.Fatal(err)
		}
	}
	f.Add("prod", Workload, "", t0.Unix(), t0.Add(24*time.Hour).Unix(), "hour")
	f.Add("", Workload, "ml/a", t0.Unix()-1, t0.Unix()+1, "day")
	f.Add("prod", Namespace, "'; DROP TABLE hourly; --", int64(math.MinInt64), int64(math.MaxInt64), "")
	f.Add("x", "pod", "ml/b", int64(0), int64(-1), "week")
	f.Fuzz(func(t *testing.T, cluster, kind, key string, from, to int64, step string) {
		q := Query{Cluster: cluster, Kind: kind, Key: key, From: time.Unix(from, 0).UTC(), To: time.Unix(to, 0).UTC(), Granularity: Granularity(step)}
		_, gerr := q.Granularity.table()
		points, err := s.Series(ctx, q)
		if (err != nil) != (gerr != nil) {
			t.Fatalf("Series(%+v): %v", q, err)
		}
		totals, err := s.Totals(ctx, q)
		if (err != nil) != (gerr != nil) {
			t.Fatalf("Totals(%+v): %v", q, err)
		}
		if gerr != nil {
			return
		}
		sum := map[string]float64{}
		for _, p := range points {
			v := p.GPUAllocatedHours
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("point %+v", p)
			}
			sum[p.Key] += v
		}
		if len(sum) != len(totals) {
			t.Fatalf("%d keys in the points, %d in the totals", len(sum), len(totals))
		}
		for k, v := range totals {
			if math.Abs(v.GPUAllocatedHours-sum[k]) > 1e-9 || v.GPUAllocatedHours > 24*recorded+1e-9 {
				t.Fatalf("key %q: total %v, points sum to %v, at most %v recorded", k, v.GPUAllocatedHours, sum[k], 24*recorded)
			}
		}
		if _, err := s.Coverage(ctx, cluster, q.From, q.To); err != nil {
			t.Fatalf("Coverage: %v", err)
		}
		if _, err := s.Fleet(ctx, q); err != nil {
			t.Fatalf("Fleet(%+v): %v", q, err)
		}
	})
}
