package serve_test

import (
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"testing"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cost"
)

// The week-1 waste list from serve's history (issue 26.5): the demo week
// recorded hour by hour into the history and read back over the week
// gives the list report --low-util gives of the week's snapshot: the same
// units, hours, holders and dollars to the cent, at the default threshold
// and at another one (the history keeps each unit's activity histogram,
// not one threshold's answer).
func TestHistoryLowUtilEqualsTheSnapshots(t *testing.T) {
	t.Parallel()
	in := demo(t)
	for _, c := range []struct{ path, flag string }{
		{"/api/v1/history/low-util", "30%:6h"},
		{"/api/v1/history/low-util?low-util=12%25:2h", "12%:2h"},
	} {
		code, _, body := in.get(t, c.path)
		if code != http.StatusOK {
			t.Fatalf("%s: status %d: %s", c.path, code, body)
		}
		var h app.HistoryLowUtil
		if err := json.Unmarshal(body, &h); err != nil {
			t.Fatal(err)
		}
		var r cost.Report
		if err := json.Unmarshal(cliOut(t, "report", "--demo", "--low-util", c.flag, "-o", "json"), &r); err != nil {
			t.Fatal(err)
		}
		want, got := r.LowUtilization, h.LowUtilization
		if want == nil || got == nil || len(want.Units) == 0 {
			t.Fatalf("%s: history list %v, snapshot list %v", c.flag, got, want)
		}
		if h.Coverage.Cycles != 168 || len(h.Notes) != 0 {
			t.Errorf("%s: the history read %d cycles (notes %v), want the week's 168 hours", c.flag, h.Coverage.Cycles, h.Notes)
		}
		if len(got.Units) != len(want.Units) || got.Unmeasured != want.Unmeasured || toCents(got.USD) != toCents(want.USD) {
			t.Fatalf("%s: history %d units (%d unmeasured) $%.2f; snapshot %d units (%d unmeasured) $%.2f", c.flag,
				len(got.Units), got.Unmeasured, got.USD, len(want.Units), want.Unmeasured, want.USD)
		}
		t.Logf("%s: %d units, $%.2f, %d unmeasured", c.flag, len(want.Units), want.USD, want.Unmeasured)
		for i, w := range want.Units {
			g := got.Units[i]
			if g.Unit != w.Unit || g.Node != w.Node || g.Model != w.Model || g.Kind != w.Kind || g.Profile != w.Profile || !reflect.DeepEqual(g.Holders, w.Holders) {
				t.Errorf("%s: unit %d: history %+v, snapshot %+v", c.flag, i, g, w)
				continue
			}
			if math.Abs(g.HoursBelow-w.HoursBelow) > 1e-6 || math.Abs(g.HoursUnheld-w.HoursUnheld) > 1e-6 ||
				(g.USD == nil) != (w.USD == nil) || (g.USD != nil && toCents(*g.USD) != toCents(*w.USD)) ||
				(g.Utilization == nil) != (w.Utilization == nil) || (g.Utilization != nil && math.Abs(*g.Utilization-*w.Utilization) > 1e-9) {
				t.Errorf("%s: unit %s: history below %.6f h, unheld %.6f h, $%v; snapshot %.6f h, %.6f h, $%v", c.flag, w.Unit,
					g.HoursBelow, g.HoursUnheld, deref(g.USD), w.HoursBelow, w.HoursUnheld, deref(w.USD))
			}
		}
	}
	if code, _, body := in.get(t, "/api/v1/history/low-util?low-util=120%25"); code != http.StatusBadRequest {
		t.Errorf("low-util=120%%: status %d, %s; want 400", code, body)
	}
}

func toCents(v float64) int64 { return int64(math.Round(v * 100)) }

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}
