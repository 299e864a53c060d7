package prom

import (
	"reflect"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// With derive, DCGM activity batches note every series' GPU, free ones
// included, and key holdings by the unit ID from the labels (the units
// are not built yet); other fields note nothing.
func TestDerivedInventoryFromActivitySeries(t *testing.T) {
	b := &builder{derive: true, opts: Options{Step: 5 * time.Minute}.withDefaults(),
		units: unitIndex{replicas: map[string]int{"n2": 4}}}
	b.gpus = &gpuUsage{holds: map[holdKey]*gpuSeries{}, hosts: map[string]bool{}}
	g := b.newGPUBatch(activityField, 1).(*gpuBatch)
	if !g.routedBy([]byte("UUID")) {
		t.Error("activity batch does not decode UUID")
	}
	free := map[string]string{"Hostname": "n1", "gpu": "0", "UUID": "GPU-a"}
	if _, ok := g.accumulator(mapLabels(free)); ok {
		t.Error("a free GPU's series got an accumulator")
	}
	mig := map[string]string{"Hostname": "n1", "gpu": "1", "UUID": "GPU-b", "GPU_I_PROFILE": "1g.10gb", "GPU_I_ID": "3",
		"pod": "p", "namespace": "ns"}
	if _, ok := g.accumulator(mapLabels(mig)); !ok {
		t.Error("a held MIG slice's series got no accumulator")
	}
	ts := map[string]string{"hostname": "n2", "gpu": "0", "vgpu": "2", "pod": "q", "namespace": "ns"}
	acc, ok := g.accumulator(mapLabels(ts))
	if !ok || acc.scale != 4 {
		t.Errorf("time-sliced series: ok %v, scale %v, want 4", ok, acc.scale)
	}
	g.accumulator(mapLabels(map[string]string{"Hostname": "n1"})) // no GPU index
	g.Commit()
	want := []gpuLabels{{host: "n1", idx: 0, uuid: "GPU-a"}, {host: "n1", idx: 1, uuid: "GPU-b", prof: "1g.10gb", gid: "3"}, {host: "n2", idx: 0}}
	if !reflect.DeepEqual(b.gpus.inv, want) || !b.gpus.seen {
		t.Errorf("inventory %+v (seen %v), want %+v", b.gpus.inv, b.gpus.seen, want)
	}
	var keys []holdKey
	for k := range b.gpus.holds {
		keys = append(keys, k)
	}
	if len(keys) != 2 || b.gpus.holds[holdKey{"ns/p", "n1/gpu1/mig-1g.10gb-3"}] == nil || b.gpus.holds[holdKey{"ns/q", "n2/gpu0/ts-2"}] == nil {
		t.Errorf("holdings %v", keys)
	}

	sm := b.newGPUBatch(smField, 1).(*gpuBatch)
	sm.accumulator(mapLabels(free))
	if sm.routedBy([]byte("UUID")) || len(sm.inv) > 0 || sm.seen {
		t.Error("an SM-activity batch noted the inventory")
	}
}

// Derived DCGM reads shard the nodes whose labels count GPUs and read every
// other host with one request per host label, both host labels.
func TestDerivedGPUTasks(t *testing.T) {
	end := time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC)
	b := &builder{opts: Options{Step: 5 * time.Minute}.withDefaults(), w: cluster.Window{Start: end.Add(-48 * time.Hour), End: end}}
	tasks := b.derivedGPUTasks([]string{"b.x", "a"}, []dcgmMetric{{"M", activityField, 1}})
	name := Matcher{MatchEqual, "__name__", "M"}
	want := [][]Matcher{
		{name, {MatchRegexp, "Hostname", `a|b\.x`}},
		{name, {MatchRegexp, "hostname", `a|b\.x`}, {MatchEqual, "Hostname", ""}},
		{name, {MatchNotRegexp, "Hostname", `a|b\.x`}, {MatchNotEqual, "Hostname", ""}},
		{name, {MatchNotRegexp, "hostname", `a|b\.x`}, {MatchNotEqual, "hostname", ""}, {MatchEqual, "Hostname", ""}},
	}
	if len(tasks) != len(want) {
		t.Fatalf("%d tasks, want %d", len(tasks), len(want))
	}
	for i, task := range tasks {
		if !task.Remote || !reflect.DeepEqual(task.Matchers, want[i]) || !task.To.Equal(end) || !task.From.Equal(b.w.Start.Add(-b.opts.Step)) {
			t.Errorf("task %d: %+v", i, task)
		}
	}
}
