package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/render"
	"github.com/gpuwise/gpuwise/internal/sim"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// Two snapshots: the demo week, then the next week in which the node the
// first week's ledger removes first went a day in. progress marks it
// applied with its true saving, in every format; the exit codes are the
// documented ones.
func TestProgressOfTwoSnapshots(t *testing.T) {
	dir := t.TempDir()
	before, after := filepath.Join(dir, "before.gwsnap"), filepath.Join(dir, "after.gwsnap")
	cfg := sim.DefaultConfig()
	s0, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.WriteFile(before, s0); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "advise", "--from", before, "-o", "json")
	if code != ExitOK {
		t.Fatalf("advise: %d %s", code, errOut)
	}
	var l struct {
		Actions []lever.Action `json:"actions"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	var node, key string
	for _, a := range l.Actions {
		if a.Kind == lever.KindRemoveNodes {
			for _, tg := range a.Targets {
				if tg.Kind == "node" && node == "" {
					node, key = tg.Name, a.Key
				}
			}
		}
	}
	if node == "" {
		t.Fatal("the demo ledger removes no node")
	}
	cfg.Start = cfg.Start.Add(7 * 24 * time.Hour)
	s1, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Apply(s1, []sim.Change{{Kind: sim.RemoveNode, Node: node, At: cfg.Start.Add(24 * time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if err := snapshot.WriteFile(after, s1); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, "progress", before, after, "-o", "json")
	if code != ExitOK {
		t.Fatalf("progress: %d %s", code, errOut)
	}
	var d render.ProgressDocument
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	var removal *render.ProgressAction
	for i := range d.Actions {
		if d.Actions[i].Key == key {
			removal = &d.Actions[i]
		}
	}
	if removal == nil || removal.Detected == 0 || removal.Realised == nil || removal.Realised.Status != "measured" || removal.Realised.RealisedUSDMonth <= 0 {
		t.Fatalf("the removal of %s: %+v %+v", node, removal.Action, removal.Realised)
	}
	if d.Kind != "gpuwise.progress" || !strings.Contains(d.Source, "before.gwsnap → ") || d.Observations != 2 || d.Baseline == nil {
		t.Errorf("document %q %q %d", d.Kind, d.Source, d.Observations)
	}
	// the red flags watched after the removal: latency has no data (said
	// so), the cost did not rise
	watched := map[string]string{}
	for _, f := range d.RedFlags {
		if f.Action == removal.ID {
			watched[f.Name] = f.Status
		}
	}
	if watched["latency_up"] != "no-data" || watched["cost_up"] != "ok" || len(watched) != 2 {
		t.Errorf("red flags after %s: %v, want latency_up no-data and cost_up ok", removal.ID, watched)
	}
	for _, f := range render.Formats {
		out, errOut, code := run(t, "progress", before, after, "-o", string(f))
		if code != ExitOK || !strings.Contains(out, removal.ID) || !strings.Contains(out, "latency_up") {
			t.Errorf("-o %s: exit %d (%s), %d bytes without %s or its latency_up flag", f, code, errOut, len(out), removal.ID)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"progress"}, ExitUsage, "give --history FILE"},
		{[]string{"progress", before, after, "--history", before}, ExitUsage, "not both"},
		{[]string{"progress", before}, ExitUsage, "two snapshot files"},
		{[]string{"progress", after, before}, ExitUsage, "AFTER"},
		{[]string{"progress", before, after, "-o", "sarif"}, ExitUsage, "sarif"},
		{[]string{"progress", "--history", filepath.Join(dir, "none.db")}, ExitInput, "none.db"},
		{[]string{"progress", "mark", "x", "done", "--history", before}, ExitUsage, "applied, rejected or clear"},
		{[]string{"progress", "mark", "x", "applied"}, ExitUsage, "--history"},
	} {
		_, errOut, code := run(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %d naming %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// progress --history and progress mark on a history holding a plan (what
// serve --history keeps): the mark is recorded, shown with its note, and
// cleared again; an unknown id is a usage error naming it.
func TestProgressMarkOnAHistory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	h, err := app.OpenHistory(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	prep, err := app.DemoSnapshot(app.DefaultDemo())
	if err != nil {
		t.Fatal(err)
	}
	rr := app.DefaultReportRequest()
	rr.Source = app.Source{Snapshot: &app.InMemory{Prepared: prep}}
	res, err := app.New(time.Now).Report(ctx, rr)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.ObservePlan(ctx, "default", prep, res); err != nil {
		t.Fatal(err)
	}
	h.Close()
	doc := func() render.ProgressDocument {
		t.Helper()
		out, errOut, code := run(t, "progress", "--history", path, "-o", "json")
		var d render.ProgressDocument
		if code != ExitOK || json.Unmarshal([]byte(out), &d) != nil {
			t.Fatalf("progress --history: %d %s", code, errOut)
		}
		return d
	}
	d := doc()
	if len(d.Actions) == 0 || d.Counts.Pending != len(d.Actions) || d.Total.Status != "too-early" {
		t.Fatalf("a fresh plan: %d actions, counts %+v, total %s", len(d.Actions), d.Counts, d.Total.Status)
	}
	id := d.Actions[0].ID
	out, errOut, code := run(t, "progress", "mark", id, "rejected", "--history", path, "--note", "keep it")
	if code != ExitOK || !strings.HasPrefix(out, id+": rejected") {
		t.Fatalf("mark: %d %q %s", code, out, errOut)
	}
	if a := doc().Actions[0]; a.Status != "rejected" || a.Mark == nil || a.Mark.Note != "keep it" {
		t.Errorf("after the mark: %s %+v", a.Status, a.Mark)
	}
	if _, _, code := run(t, "progress", "mark", id, "clear", "--history", path); code != ExitOK || doc().Actions[0].Status != "pending" {
		t.Errorf("clear: exit %d, %s", code, doc().Actions[0].Status)
	}
	if _, errOut, code := run(t, "progress", "mark", "nope-000000", "applied", "--history", path); code != ExitUsage || !strings.Contains(errOut, "nope-000000") {
		t.Errorf("unknown id: %d %s", code, errOut)
	}
}
