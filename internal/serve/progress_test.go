package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/render"
)

func progressDoc(t *testing.T, in *instance) render.ProgressDocument {
	t.Helper()
	code, _, body := in.get(t, "/api/v1/progress")
	if code != http.StatusOK {
		t.Fatalf("progress: %d %s", code, body)
	}
	var d render.ProgressDocument
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// The plan and its baseline survive a restart of the service: the same
// baseline, the same ids, the observations going on; and once the history
// holds the baseline's window and a later one of the same length, the
// total's two spends are the reports' of those windows, to the cent.
func TestPlanSurvivesARestart(t *testing.T) {
	t.Parallel()
	wd := simWorld(t)
	path := filepath.Join(t.TempDir(), "history.db")
	clk := &clock{}
	clk.set(week.Add(30 * time.Hour))
	a := startWith(t, liveOptions(path), clk.now, staticInv{wd.snap}, &fakeProm{wd: wd})
	if err := a.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	base, _ := reportTotals(t, a)
	first := progressDoc(t, a)
	if first.Baseline == nil || len(first.Actions) == 0 || first.Observations != 1 {
		t.Fatalf("after the first cycle: baseline %v, %d actions, %d observations", first.Baseline, len(first.Actions), first.Observations)
	}
	if first.Baseline.SpendUSD != math.Round(base.Totals.TotalCost*100)/100 || len(first.Baseline.Actions) != len(first.Actions) {
		t.Errorf("baseline spend %.2f, want the report's %.2f; %d of %d actions", first.Baseline.SpendUSD, base.Totals.TotalCost, len(first.Baseline.Actions), len(first.Actions))
	}
	if first.Total.Status != "too-early" {
		t.Errorf("total %q on the first window, want too-early", first.Total.Status)
	}
	a.srv.Close()
	a.svc.Close()

	clk.set(week.Add(60 * time.Hour))
	b := startWith(t, liveOptions(path), clk.now, staticInv{wd.snap}, &fakeProm{wd: wd})
	if err := b.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	now, _ := reportTotals(t, b)
	second := progressDoc(t, b)
	if !second.Baseline.At.Equal(first.Baseline.At) || second.Baseline.SpendUSD != first.Baseline.SpendUSD || second.Observations != 2 {
		t.Errorf("after the restart: baseline at %v spend %.2f, %d observations; want %v %.2f, 2", second.Baseline.At, second.Baseline.SpendUSD,
			second.Observations, first.Baseline.At, first.Baseline.SpendUSD)
	}
	ids := map[string]bool{}
	for _, a := range second.Actions {
		ids[a.ID] = true
	}
	for _, a := range first.Actions {
		if !ids[a.ID] {
			t.Errorf("action %s (%s) lost in the restart", a.ID, a.Key)
		}
	}
	tot := second.Total
	if tot.Status != "measured" {
		t.Fatalf("total %q (%s), want measured: 24 h of baseline and 30 h after it", tot.Status, tot.Note)
	}
	// before: the baseline's window [6 h, 30 h); after: [36 h, 60 h), the window the report covers now
	if !tot.Before.Start.Equal(week.Add(6*time.Hour)) || !tot.After.End.Equal(week.Add(60*time.Hour)) {
		t.Errorf("total windows %v and %v", tot.Before, tot.After)
	}
	if tot.BeforeUSD != first.Baseline.SpendUSD || tot.AfterUSD != math.Round(now.Totals.TotalCost*100)/100 {
		t.Errorf("total %.2f → %.2f, want the reports' %.2f → %.2f to the cent", tot.BeforeUSD, tot.AfterUSD, first.Baseline.SpendUSD, now.Totals.TotalCost)
	}
	sum := math.Round(tot.OtherUSDMonth * 100)
	for _, v := range tot.Actions {
		sum += math.Round(v * 100)
	}
	if sum != math.Round(tot.ChangeUSDMonth*100) || math.Round((tot.BeforeUSDMonth-tot.AfterUSDMonth)*100) != math.Round(tot.ChangeUSDMonth*100) {
		t.Errorf("total does not add up: %+v", tot)
	}
	// the other formats say the same
	for _, f := range []string{"table", "markdown", "csv", "html", "yaml"} {
		code, _, body := b.get(t, "/api/v1/progress?output="+f)
		if code != http.StatusOK || !strings.Contains(string(body), second.Actions[0].ID) {
			t.Errorf("progress -o %s: %d, %d bytes without %s", f, code, len(body), second.Actions[0].ID)
		}
	}
	// a mark without credentials is refused; the metrics carry the checklist
	resp, err := b.srv.Client().Post(b.srv.URL+"/api/v1/progress/marks", "application/json", strings.NewReader(`{"id":"`+second.Actions[0].ID+`","status":"rejected"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("mark without credentials: %d, want 403", resp.StatusCode)
	}
	if m := string(mustGet(t, b, "/metrics")); !strings.Contains(m, `gpuwise_plan_actions{cluster="default",status="pending"}`) ||
		!strings.Contains(m, "gpuwise_plan_spend_change_usd_per_month") {
		t.Errorf("metrics lack the plan's families")
	}
}

// serve --demo --demo-applied shows a plan under way: the baseline pinned
// at hour 72, the baseline ledger's first node removal and spot move seen
// applied (they were carried out at hour 96) with their realised dollars,
// the rest pending. Without --demo-applied the demo tracks the same plan,
// nothing applied (and its answers are gpuwise demo's: TestAPIAnswersTheCLIsOutput).
func TestDemoShowsAPlanUnderWay(t *testing.T) {
	t.Parallel()
	o := demoOptions()
	o.DemoApplied = true
	in := startWith(t, o, time.Now, nil, nil)
	d := progressDoc(t, in)
	if d.Baseline == nil || !d.Baseline.At.Equal(week.Add(72*time.Hour)) || d.Observations != 2 {
		t.Fatalf("baseline %+v, %d observations; want pinned at hour 72, then the week's end", d.Baseline, d.Observations)
	}
	applied := map[string]float64{}
	for _, a := range d.Actions {
		if a.Status != "applied" {
			continue
		}
		if a.Realised == nil || a.Realised.Status != "measured" || a.Realised.RealisedUSDMonth <= 0 || !a.AppliedAt.Equal(week.Add(96*time.Hour)) {
			t.Errorf("%s applied at %v, realised %+v", a.ID, a.AppliedAt, a.Realised)
			continue
		}
		applied[a.Kind] = a.Realised.RealisedUSDMonth
	}
	if len(applied) != 2 || applied["remove-nodes"] == 0 || applied["spot"] == 0 {
		t.Errorf("applied %v, want the node removal and the spot move", applied)
	}
	if d.Counts.Pending == 0 || d.Total.Status != "measured" {
		t.Errorf("counts %+v, total %s", d.Counts, d.Total.Status)
	}
	m := string(mustGet(t, in, "/metrics"))
	if !strings.Contains(m, `gpuwise_plan_realised_savings_usd_per_month{action="spot-`) {
		t.Errorf("metrics lack the realised saving per action")
	}
	// the red flags watched after the two applied actions: the spot move's
	// interruptions and cost, the latency no data gpuwise keeps can check
	for _, want := range []string{`gpuwise_plan_red_flag{action="spot-8e0f2a",cluster="default",flag="spot_interruptions",lever="spot"} 0`,
		`gpuwise_plan_red_flag{action="consolidate-344c01",cluster="default",flag="cost_up",lever="consolidate"} 0`,
		`gpuwise_plan_red_flag_unwatched{action="spot-8e0f2a",cluster="default",flag="latency_up",lever="spot"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	flags := map[string]string{}
	for _, f := range d.RedFlags {
		flags[f.Action+" "+f.Name] = f.Status
	}
	if flags["spot-8e0f2a spot_interruptions"] != "ok" || flags["consolidate-344c01 latency_up"] != "no-data" {
		t.Errorf("red flags %v", flags)
	}
}

// Behind a token the service takes a user's mark: the action turns
// rejected, the mark's note is kept, an unknown id is a 400 naming it, a
// cleared mark puts the action back to what the cluster shows.
func TestMarkThroughTheAPI(t *testing.T) {
	t.Parallel()
	wd := simWorld(t)
	dir := t.TempDir()
	clk := &clock{}
	clk.set(week.Add(30 * time.Hour))
	opts := liveOptions(filepath.Join(dir, "history.db"))
	opts.BearerTokenFile = writeFile(t, dir, "token", planted+"\n")
	in := startLive(t, opts, clk, staticInv{wd.snap}, &fakeProm{wd: wd})
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	auth := []string{"Authorization", "Bearer " + planted}
	code, _, body := in.get(t, "/api/v1/progress", auth...)
	var d render.ProgressDocument
	if code != http.StatusOK || json.Unmarshal(body, &d) != nil || len(d.Actions) == 0 {
		t.Fatalf("progress: %d %s", code, body)
	}
	id := d.Actions[0].ID
	post := func(body string) (int, []byte) {
		req, _ := http.NewRequest("POST", in.srv.URL+"/api/v1/progress/marks", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+planted)
		resp, err := in.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.Bytes()
	}
	if code, b := post(`{"id":"` + id + `","status":"rejected","note":"not this quarter"}`); code != http.StatusOK || !strings.Contains(string(b), `"status": "rejected"`) {
		t.Fatalf("mark: %d %s", code, b)
	}
	_, _, body = in.get(t, "/api/v1/progress", auth...)
	json.Unmarshal(body, &d)
	if a := d.Actions[0]; a.Status != "rejected" || a.Mark == nil || a.Mark.Note != "not this quarter" || d.Counts.Rejected != 1 {
		t.Errorf("after the mark: %s %+v, counts %+v", a.Status, a.Mark, d.Counts)
	}
	if code, b := post(`{"id":"nope-000000","status":"applied"}`); code != http.StatusBadRequest || !strings.Contains(string(b), "nope-000000") {
		t.Errorf("unknown id: %d %s", code, b)
	}
	if code, b := post(`{"id":"` + id + `","status":"done"}`); code != http.StatusBadRequest || !strings.Contains(string(b), "applied, rejected or clear") {
		t.Errorf("bad status: %d %s", code, b)
	}
	if code, b := post(`{"id":"` + id + `","status":"clear"}`); code != http.StatusOK || !strings.Contains(string(b), `"status": "pending"`) {
		t.Errorf("clear: %d %s", code, b)
	}
	// the next cycle keeps the mark's effect (the marks are applied before it observes)
	post(`{"id":"` + id + `","status":"rejected"}`)
	clk.set(week.Add(31 * time.Hour))
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, _, body = in.get(t, "/api/v1/progress", auth...)
	json.Unmarshal(body, &d)
	for _, a := range d.Actions {
		if a.ID == id && a.Status != "rejected" {
			t.Errorf("after a cycle: %s %s, want still rejected", a.ID, a.Status)
		}
	}
}
