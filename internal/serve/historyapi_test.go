package serve_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// /api/v1/compare and `report --compare --history` are one use case
// (app.History.Compare): on the same history they answer the same
// comparison.
func TestCompareAnswersAsTheCLI(t *testing.T) {
	t.Parallel()
	wd := simWorld(t)
	path := filepath.Join(t.TempDir(), "history.db")
	clk := &clock{}
	clk.set(week.Add(30 * time.Hour))
	in := startWith(t, liveOptions(path), clk.now, staticInv{wd.snap}, &fakeProm{wd: wd})
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	var api, cli map[string]any
	if err := json.Unmarshal(mustGet(t, in, "/api/v1/compare?kind=workload&period=12h"), &api); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(cliOut(t, "report", "--compare", "12h", "--history", path, "--cluster", "default", "--by", "workload", "-o", "json"), &cli); err != nil {
		t.Fatal(err)
	}
	if changes, _ := api["changes"].([]any); len(changes) == 0 {
		t.Fatalf("the service compared no workloads: %v", api)
	}
	if !reflect.DeepEqual(api, cli) {
		a, _ := json.MarshalIndent(api, "", " ")
		c, _ := json.MarshalIndent(cli, "", " ")
		t.Errorf("/api/v1/compare:\n%.2000s\nreport --compare --history:\n%.2000s", a, c)
	}
}
