package prom

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	tests := []struct {
		name     string
		end      time.Time
		step     time.Duration
		maxSteps int
		want     []Span
	}{
		{"one day of 5m steps in 100-step spans", at(24 * time.Hour), 5 * time.Minute, 100, []Span{
			{at(0), at(99 * 5 * time.Minute)},
			{at(100 * 5 * time.Minute), at(199 * 5 * time.Minute)},
			{at(200 * 5 * time.Minute), at(24 * time.Hour)},
		}},
		{"end off the grid", at(61 * time.Minute), 30 * time.Minute, 10, []Span{{at(0), at(time.Hour)}}},
		{"a single point", at(0), time.Minute, 10, []Span{{at(0), at(0)}}},
		{"maxSteps above Prometheus' limit is capped", at(20000 * time.Second), time.Second, 50000, []Span{
			{at(0), at(10999 * time.Second)}, {at(11000 * time.Second), at(20000 * time.Second)},
		}},
		{"inverted range", at(-time.Hour), time.Minute, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Split(t0, tt.end, tt.step, tt.maxSteps)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestShards(t *testing.T) {
	t.Parallel()
	got := shards([]string{"c", "a.b", "d", "b"}, 3)
	want := []string{`"a\\.b|b|c"`, `"d"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
