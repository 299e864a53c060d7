package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/history"
)

// The low-utilization list over three days of two clusters' history
// (half-hour cycles; some units change price in the middle of an hour,
// some are unpriced, some unmeasured, holders come and go): the list
// History.LowUtil builds reading the rows one at a time is, bit for bit,
// the list of every row of the range read at once (Store.Units, in hour
// order) given to cost.LowUtilFrom, as it was built before it streamed —
// for every cluster (units named cluster/unit) and for one, at two
// thresholds.
func TestHistoryLowUtilStreamedIsTheListOfAllRows(t *testing.T) {
	ctx := context.Background()
	h, err := app.OpenHistory(ctx, history.InMemory)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	t0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(30, 6))
	const cycles, units = 144, 12 // three days of half hours
	for _, cl := range []string{"east", "west"} {
		for c := 0; c < cycles; c++ {
			start := t0.Add(time.Duration(c) * 30 * time.Minute)
			cy := history.Cycle{Cluster: cl, Start: start, End: start.Add(30 * time.Minute)}
			for i := 0; i < units; i++ {
				u := cost.UnitHours{Unit: fmt.Sprintf("n%d/gpu%d", i/4, i%4), Node: fmt.Sprintf("n%d", i/4), Model: "H100-80GB",
					Kind: "whole", Fraction: 1, LifeSeconds: 1800, Holders: []string{}}
				if i%4 == 3 {
					u.Kind, u.Profile, u.Fraction = "mig-slice", "3g.40gb", 0.5
				}
				switch p := 2.0 + float64(i%3); {
				case i%6 == 5: // unpriced
				case i%6 == 4 && c >= 51: // a new price from the middle of hour 25
					p *= 0.7
					u.GPUUSDPerHour = &p
				default:
					u.GPUUSDPerHour = &p
				}
				if held := rng.Float64(); i == 7 { // held and never measured
					u.HeldSeconds, u.Unmeasured, u.Holders = 1800, true, []string{"ml/Job/blind"}
				} else if held > 0.2 {
					u.HeldSeconds = 1800 * held
					u.Holders = []string{fmt.Sprintf("ml/Job/j%d", rng.IntN(5)), fmt.Sprintf("web/Deployment/d%d", i%2)}
					if i%5 == 2 && c%7 != 0 { // unmeasured most of the time
						u.Unmeasured = true
					} else {
						u.MeasuredSeconds = u.HeldSeconds
						for left := u.MeasuredSeconds; left > 0; {
							s := min(left, 60+rng.Float64()*600)
							b := rng.IntN(60)
							if i%3 == 0 {
								b = rng.IntN(101)
							}
							u.Hist[b] += s
							u.ActiveSeconds += s * float64(b) / 100
							left -= s
						}
					}
				}
				cy.Units = append(cy.Units, u)
			}
			if _, err := h.Store().Record(ctx, cy); err != nil {
				t.Fatal(err)
			}
		}
	}
	from, to := t0.Add(5*time.Hour+20*time.Minute), t0.Add(70*time.Hour+10*time.Minute) // taken to the hours 5..71
	for _, c := range []struct {
		cluster string
		lu      cost.LowUtilOptions
	}{
		{app.AllClusters, cost.LowUtilOptions{}},
		{app.AllClusters, cost.LowUtilOptions{Threshold: 0.12, MinHours: 2}},
		{"west", cost.LowUtilOptions{Threshold: 0.45, MinHours: 10}},
	} {
		got, err := h.LowUtil(ctx, app.HistoryLowUtilRequest{Cluster: c.cluster, From: from, To: to, LowUtil: c.lu})
		if err != nil {
			t.Fatal(err)
		}
		if !got.From.Equal(t0.Add(5*time.Hour)) || !got.To.Equal(t0.Add(71*time.Hour)) {
			t.Fatalf("%s: read %s..%s, want the whole hours 05:00 to 23:00 two days on", c.cluster, got.From, got.To)
		}
		cl := c.cluster
		if cl == app.AllClusters {
			cl = ""
		}
		rows, err := h.Store().Units(ctx, cl, got.From, got.To)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]cost.UnitHours, len(rows))
		for i, r := range rows {
			all[i] = r.UnitHours
			if cl == "" {
				all[i].Unit, all[i].Node = r.Cluster+"/"+r.Unit, r.Cluster+"/"+r.Node
			}
		}
		o := c.lu
		if !o.On() {
			o = cost.LowUtilOptions{Threshold: cost.DefaultLowUtilThreshold, MinHours: cost.DefaultLowUtilHours}
		}
		want := cost.LowUtilFrom(all, o)
		if len(rows) < 66*units || len(want.Units) < 3 || want.Unmeasured == 0 {
			t.Fatalf("%s %+v: %d rows, %d units listed, %d unmeasured: the history does not exercise the list", c.cluster, o, len(rows), len(want.Units), want.Unmeasured)
		}
		if !reflect.DeepEqual(got.LowUtilization, want) {
			gj, _ := json.Marshal(got.LowUtilization)
			wj, _ := json.Marshal(want)
			t.Errorf("%s %+v: streamed list\n%s\nall rows' list\n%s", c.cluster, o, gj, wj)
		}
		prefixed := strings.HasPrefix(want.Units[0].Unit, "east/") || strings.HasPrefix(want.Units[0].Unit, "west/")
		if prefixed != (cl == "") {
			t.Errorf("%s: first unit %q: named by its cluster %v, want %v", c.cluster, want.Units[0].Unit, prefixed, cl == "")
		}
		if got.Coverage.Cycles == 0 || len(got.Notes) != 0 {
			t.Errorf("%s: coverage %+v, notes %v", c.cluster, got.Coverage, got.Notes)
		}
	}
}
