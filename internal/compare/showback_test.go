package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// The cluster rule moves the unallocated GPU cost onto the groups by
// allocated GPU $ and the CPU/memory pool by CPU+memory $: nothing is lost
// (the total stays), the unallocated row goes, each share is proportional.
func TestShowbackClusterRuleConservesTheTotal(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	w := cluster.Window{Start: t0, End: t0.Add(24 * time.Hour)}
	keys := map[string]tally.Values{
		"a":            {GPUAllocatedHours: 10, GPUActiveUSD: 30, GPUIdleUSD: 10, CPUUSD: 2, MemoryUSD: 1, TotalUSD: 43},
		"b":            {GPUAllocatedHours: 5, GPUActiveUSD: 10, GPUIdleUSD: 10, CPUUSD: 1, TotalUSD: 21},
		UnallocatedKey: {GPUUnallocatedUSD: 60, CPUUSD: 8, TotalUSD: 68},
	}
	none, err := NewShowback("label:team", ShareNone, ShowbackSide{Window: w, Keys: keys, Covered: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := NewShowback("label:team", ShareCluster, ShowbackSide{Window: w, Keys: keys, Covered: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(none.Rows) != 3 || len(sh.Rows) != 2 {
		t.Fatalf("rows: none %d, cluster %d", len(none.Rows), len(sh.Rows))
	}
	if none.Total.TotalUSD != 132 || math.Abs(sh.Total.TotalUSD-132) > 1e-9 {
		t.Errorf("totals %v and %v, want 132", none.Total.TotalUSD, sh.Total.TotalUSD)
	}
	// a pays 40 of 60 GPU $ and 3 of 4 CPU+memory $
	if a := sh.Rows[0]; a.Key != "a" || math.Abs(a.UnallocatedUSD-(60*40.0/60+8*3.0/4)) > 1e-9 || math.Abs(a.TotalUSD-(43+40+6)) > 1e-9 {
		t.Errorf("a: %+v", a)
	}
	if sh.MonthlyTotalUSD != 132*730.0/24 {
		t.Errorf("monthly %v", sh.MonthlyTotalUSD)
	}
	if _, err := NewShowback("x", "node", ShowbackSide{Window: w}, nil); err == nil {
		t.Error("node rule accepted")
	}
}

// A comparison period the history does not cover gives no trend (nil,
// never a change from $0) and says so; a covered one gives each change.
func TestShowbackTrend(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	cur := ShowbackSide{Window: cluster.Window{Start: t0, End: t0.Add(24 * time.Hour)}, Covered: true,
		Keys: map[string]tally.Values{"a": {TotalUSD: 30}}}
	prev := ShowbackSide{Window: cluster.Window{Start: t0.Add(-24 * time.Hour), End: t0}, Keys: map[string]tally.Values{"a": {TotalUSD: 20}, "gone": {TotalUSD: 5}}}
	s, _ := NewShowback("namespace", ShareNone, cur, &prev)
	if s.Rows[0].ChangeUSD != nil || len(s.Notes) != 1 {
		t.Errorf("uncovered: change %v, notes %v", s.Rows[0].ChangeUSD, s.Notes)
	}
	prev.Covered = true
	s, _ = NewShowback("namespace", ShareNone, cur, &prev)
	if len(s.Rows) != 2 || *s.Rows[0].ChangeUSD != 10 || *s.Rows[0].ChangeShare != 0.5 || *s.Rows[1].ChangeUSD != -5 || *s.Total.ChangeUSD != 5 {
		t.Errorf("covered: %+v", s.Rows)
	}
}

// The same history gives the same showback to the last bit, however Go
// orders the maps it is summed from: the service's answers cache and a
// request computed apart must agree byte for byte.
func TestShowbackIsTheSameBitsEveryTime(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	w := cluster.Window{Start: t0, End: t0.Add(24 * time.Hour)}
	pw := cluster.Window{Start: t0.Add(-24 * time.Hour), End: t0}
	keys, prev := map[string]tally.Values{UnallocatedKey: {GPUUnallocatedUSD: 1234.567, CPUUSD: 89.01, TotalUSD: 1323.577}}, map[string]tally.Values{}
	for i := range 40 {
		x := 1 / float64(i+3) // sums of these change with their order
		keys[fmt.Sprint("team-", i)] = tally.Values{GPUAllocatedHours: 10 * x, GPUActiveUSD: 30 * x, GPUIdleUSD: 11 * x, CPUUSD: 2 * x, MemoryUSD: x / 7, TotalUSD: 43*x + x/7}
		prev[fmt.Sprint("team-", i+5)] = tally.Values{TotalUSD: 17 * x}
	}
	encode := func() string {
		s, err := NewShowback("label:team", ShareCluster, ShowbackSide{Window: w, Keys: keys, Covered: true}, &ShowbackSide{Window: pw, Keys: prev, Covered: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := encode()
	for i := range 30 {
		if got := encode(); got != first {
			t.Fatalf("call %d: the showback differs from the first call's (%d against %d bytes)", i+2, len(got), len(first))
		}
	}
}
