package prom

import (
	"reflect"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// With derive, DCGM activity batches note every series' GPU, free ones
// included, and key holdings by the unit ID from the labels (the units
// are not built yet); other fields note nothing.
func TestDerivedInventoryFromActivitySeries(t *testing.T) {
	u := newGPUUsage(300, true, unitIndex{replicas: map[string]int{"n2": 4}})
	g := u.batch(activityField, 1)().(*gpuBatch)
	if !dcgmKeep(true)([]byte("UUID")) || dcgmKeep(false)([]byte("UUID")) {
		t.Error("UUID decoded for the wrong batches")
	}
	free := labels("Hostname", "n1", "gpu", "0", "UUID", "GPU-a")
	if tg := g.Series(free); tg.Acc.Activity != nil {
		t.Error("a free GPU's series got an accumulator")
	}
	mig := labels("GPU_I_ID", "3", "GPU_I_PROFILE", "1g.10gb", "Hostname", "n1", "UUID", "GPU-b", "gpu", "1", "namespace", "ns", "pod", "p")
	if tg := g.Series(mig); tg.Acc.Activity == nil {
		t.Error("a held MIG slice's series got no accumulator")
	}
	ts := labels("gpu", "0", "hostname", "n2", "namespace", "ns", "pod", "q", "vgpu", "2")
	if tg := g.Series(ts); tg.Acc.Activity == nil || tg.Acc.Scale != 4 {
		t.Errorf("time-sliced series: %+v, want scale 4", tg.Acc)
	}
	g.Series(labels("Hostname", "n1")) // no GPU index
	g.Commit()
	want := []gpuLabels{{host: "n1", idx: 0, uuid: "GPU-a"}, {host: "n1", idx: 1, uuid: "GPU-b", prof: "1g.10gb", gid: "3"}, {host: "n2", idx: 0}}
	if !reflect.DeepEqual(u.inv, want) || !u.seen {
		t.Errorf("inventory %+v (seen %v), want %+v", u.inv, u.seen, want)
	}
	var keys []holdKey
	for k := range u.holds {
		keys = append(keys, k)
	}
	if len(keys) != 2 || u.holds[holdKey{"ns/p", "n1/gpu1/mig-1g.10gb-3"}] == nil || u.holds[holdKey{"ns/q", "n2/gpu0/ts-2"}] == nil {
		t.Errorf("holdings %v", keys)
	}
	sm := u.batch(smField, 1)().(*gpuBatch)
	sm.Series(free)
	if len(sm.inv) > 0 || sm.seen {
		t.Error("an SM-activity batch noted the inventory")
	}
}

// Derived DCGM reads shard the nodes whose labels count GPUs and read every
// other host with one request per host label, both host labels.
func TestDerivedGPUTasks(t *testing.T) {
	end := time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC)
	o := Defaults()
	o.Window = cluster.Window{Start: end.Add(-48 * time.Hour), End: end}
	r := &reader{opts: o, w: o.Window}
	u := newGPUUsage(300, true, unitIndex{})
	tasks, others := r.derivedGPUTasks([]string{"b.x", "a"}, []dcgmMetric{{"M", activityField, 1}}, u)
	if len(others) != 0 {
		t.Errorf("the activity metric's requests for other hosts were set apart: %+v", others)
	}
	name := wire.Matcher{Type: wire.MatchEqual, Name: "__name__", Value: "M"}
	m := func(typ int, n, v string) wire.Matcher { return wire.Matcher{Type: typ, Name: n, Value: v} }
	want := [][]wire.Matcher{
		{name, m(wire.MatchRegexp, "Hostname", `a|b\.x`)},
		{name, m(wire.MatchRegexp, "hostname", `a|b\.x`), m(wire.MatchEqual, "Hostname", "")},
		{name, m(wire.MatchNotRegexp, "Hostname", `a|b\.x`), m(wire.MatchNotEqual, "Hostname", "")},
		{name, m(wire.MatchNotRegexp, "hostname", `a|b\.x`), m(wire.MatchNotEqual, "hostname", ""), m(wire.MatchEqual, "Hostname", "")},
	}
	// One request per shard and one for the other hosts, each reading both
	// host labels.
	if len(tasks) != len(want)/2 {
		t.Fatalf("%d tasks, want %d", len(tasks), len(want)/2)
	}
	for i, task := range tasks {
		got := append([][]wire.Matcher{task.Matchers}, task.Also...)
		if !task.Remote || !reflect.DeepEqual(got, want[2*i:2*i+2]) || !task.To.Equal(end) || !task.From.Equal(r.w.Start.Add(-o.Step)) {
			t.Errorf("task %d: %+v", i, task)
		}
	}
	if !reflect.DeepEqual(tasks[0].Nodes, []string{"a", "b.x"}) || tasks[1].Nodes != nil {
		t.Errorf("nodes of the tasks: %v, %v", tasks[0].Nodes, tasks[1].Nodes)
	}
}

// The other DCGM metrics' requests for hosts outside the labelled nodes
// are set apart, read only when the activity's found such a host or
// failed; link metrics are read for whole devices only.
func TestDerivedGPUTasksOthers(t *testing.T) {
	end := time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC)
	o := Defaults()
	o.Window = cluster.Window{Start: end.Add(-48 * time.Hour), End: end}
	r := &reader{opts: o, w: o.Window}
	u := newGPUUsage(300, true, unitIndex{})
	tasks, others := r.derivedGPUTasks([]string{"a"}, dcgmMetrics("M"), u)
	// DCGM's five metrics and AMD's two (activity, VRAM) for the shard;
	// for the other hosts both activities, the five others set apart.
	if len(tasks) != 7+2 || len(others) != 5 {
		t.Fatalf("%d tasks and %d set apart, want 9 and 5", len(tasks), len(others))
	}
	for _, task := range others {
		if task.Nodes != nil || task.Metric == "M" {
			t.Errorf("set apart: %s (nodes %v)", task.Query, task.Nodes)
		}
	}
	links := 0
	for _, task := range append(tasks, others...) {
		whole := len(task.Also) == 1
		for _, ms := range append([][]wire.Matcher{task.Matchers}, task.Also...) {
			w := false
			for _, m := range ms {
				w = w || m.Name == "GPU_I_PROFILE" && m.Type == wire.MatchEqual && m.Value == ""
			}
			whole = whole && w
		}
		if link := task.Metric == pcieMetric || task.Metric == nvlinkMetric; link != whole {
			t.Errorf("%s: whole devices only %v", task.Query, whole)
		} else if link {
			links++
		}
	}
	if links != 4 {
		t.Errorf("%d link requests, want 4", links)
	}
	failedOther := []query.Failure{{Task: query.Task{}}}
	failedShard := []query.Failure{{Task: query.Task{Nodes: []string{"a"}}}}
	for _, c := range []struct {
		inv    []gpuLabels
		failed []query.Failure
		want   bool
	}{
		{[]gpuLabels{{host: "a"}}, nil, false},
		{[]gpuLabels{{host: "a"}, {host: "z"}}, nil, true},
		{nil, failedShard, false},
		{nil, failedOther, true},
	} {
		if got := otherHostsRead([]string{"a"}, c.inv, c.failed); got != c.want {
			t.Errorf("otherHostsRead(%v, %d failed): %v, want %v", c.inv, len(c.failed), got, c.want)
		}
	}
}
