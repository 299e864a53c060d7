package sim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/usage"
)

// The spans of a pass are the same spans the whole window gives, OOM
// kills included; a range outside the window is an error.
func TestSpansInKeepsTheSameSpans(t *testing.T) {
	cfg := DefaultConfig()
	_, all, err := Spans(cfg, 6*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	states := cmp.Options{
		cmp.Comparer(func(a, b *usage.Activity) bool {
			return (a == nil) == (b == nil) && (a == nil || cmp.Equal(a.State(), b.State()))
		}),
		cmp.Comparer(func(a, b *usage.Gauge) bool {
			return (a == nil) == (b == nil) && (a == nil || cmp.Equal(a.State(), b.State()))
		}),
	}
	oom := 0
	for _, r := range [][2]int{{0, 4}, {4, 17}, {27, 99}} {
		_, part, err := SpansIn(cfg, 6*time.Hour, r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		want := all[r[0]:min(r[1], len(all))]
		if diff := cmp.Diff(want, part, states); diff != "" {
			t.Errorf("spans %d..%d differ from the whole window's (-whole +pass):\n%s", r[0], r[1], diff)
		}
		for _, sp := range part {
			for _, pu := range sp.Pods {
				oom += pu.OOMKills
			}
		}
	}
	if oom == 0 {
		t.Error("test premise: the demo week has OOM kills")
	}
	if _, _, err := SpansIn(cfg, 6*time.Hour, 28, 40); err == nil {
		t.Error("spans 28..40 of a week of 6-hour spans: no error")
	}
}
