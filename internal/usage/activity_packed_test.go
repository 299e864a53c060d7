package usage

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// activityAnswers is every answer an Activity gives: all 102 idle
// thresholds, quantiles, the mean and its JSON.
func activityAnswers(t *testing.T, a *Activity) []any {
	t.Helper()
	out := []any{a.Seconds, a.Samples, a.ActiveSeconds, a.Max, a.Mean()}
	for th := 0; th <= activityBuckets; th++ {
		out = append(out, a.IdleSeconds(float64(th)/100))
	}
	for _, q := range []float64{0, 0.01, 0.1, 0.25, 0.5, 0.9, 0.95, 0.99, 1} {
		out = append(out, a.Quantile(q))
	}
	j, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, string(j))
}

// randomActivity adds samples around a few centres, some at the bitmap's
// word edges (63%, 64%) and at 0 and 100%, leaving buckets empty inside
// the span.
func randomActivity(rng *rand.Rand) *Activity {
	var a Activity
	centres := []float64{0, 0.635, 0.645, 1, rng.Float64(), rng.Float64()}
	for range rng.IntN(200) {
		v := centres[rng.IntN(len(centres))] + (rng.Float64()-0.5)*0.02
		a.Add(v, float64(1+rng.IntN(600)))
	}
	return &a
}

// TestPackedActivityIsTheOpenOne: an activity packed (set from its state,
// or compacted) holds only its non-zero buckets and answers, marshals,
// states, merges and adds exactly as the open one it came from.
func TestPackedActivityIsTheOpenOne(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := range 300 {
		open := randomActivity(rng)
		var fromState Activity
		if err := fromState.SetState(copyActivityState(open.State())); err != nil {
			t.Fatal(err)
		}
		compacted := *open
		compacted.hist = append([]float64(nil), open.hist...)
		compacted.Compact()
		for name, p := range map[string]*Activity{"set from state": &fromState, "compacted": &compacted} {
			if open.Seconds > 0 && (!p.isPacked() || len(p.hist) != nonZero(open.hist) || cap(p.hist) != len(p.hist)) {
				t.Fatalf("trial %d, %s: packed %v, %d/%d buckets held for %d non-zero", trial, name, p.isPacked(), len(p.hist), cap(p.hist), nonZero(open.hist))
			}
			if diff := cmp.Diff(activityAnswers(t, open), activityAnswers(t, p), cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("trial %d, %s: answers differ (-open +packed):\n%s", trial, name, diff)
			}
			if diff := cmp.Diff(open.State(), p.State()); diff != "" {
				t.Fatalf("trial %d, %s: state differs (-open +packed):\n%s", trial, name, diff)
			}
		}
		// Merging a packed activity in, merging into one and adding to
		// one give what the open one gives.
		other := randomActivity(rng)
		var intoOpen, intoPacked Activity
		intoOpen.Merge(open)
		intoPacked.Merge(&fromState)
		o2, p2 := *open, fromState
		o2.hist = append([]float64(nil), open.hist...)
		o2.Merge(other)
		p2.Merge(other)
		o2.Add(0.5, 7)
		p2.Add(0.5, 7)
		for i, pair := range [][2]*Activity{{&intoOpen, &intoPacked}, {&o2, &p2}} {
			if diff := cmp.Diff(activityAnswers(t, pair[0]), activityAnswers(t, pair[1]), cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("trial %d, case %d: differs after merging or adding (-open +packed):\n%s", trial, i, diff)
			}
		}
		if p2.isPacked() {
			t.Fatalf("trial %d: an activity added to stays packed", trial)
		}
		if diff := cmp.Diff(activityAnswers(t, open), activityAnswers(t, &fromState), cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("trial %d: the packed activity changed when a copy was added to (-open +packed):\n%s", trial, diff)
		}
	}
}
