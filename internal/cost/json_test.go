package cost

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// unpricedFixture: "priced" (1 GPU, $23.60 for 10 h) runs team-a; the
// unknown-type "onprem" node runs team-b, whose dollars do not exist.
func unpricedFixture() *cluster.Snapshot {
	return &cluster.Snapshot{Window: ct.Window(10),
		Nodes: []cluster.Node{
			ct.Node("priced").GPUs(1, "H100-80GB").Obj(),
			ct.Node("onprem").Instance("unknown", cluster.OnDemand).GPUs(1, "A100-80GB").Obj(),
		},
		Pods: []cluster.Pod{
			ct.Pod("team-a", "a").On("priced").Holds("priced/gpu0", 0.5, 10*hour).Obj(),
			ct.Pod("team-b", "b").On("onprem").Holds("onprem/gpu0", 0.5, 10*hour).Obj(),
		}}
}

func rowJSON(t *testing.T, r *Report, key string) map[string]any {
	t.Helper()
	b, err := json.Marshal(row(t, r, key))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

var dollarFields = []string{"cpu_cost_usd", "memory_cost_usd", "cpu_memory_unallocated_usd", "total_cost_usd", "monthly_cost_usd", "monthly_gpu_idle_usd"}

// Unpriced dollars are null in JSON, never a numeric 0; priced rows say
// "unpriced": false and "unpriced_gpu_hours": 0 too (the documented
// fields are always present).
func TestJSONUnpricedRowsCarryNullDollars(t *testing.T) {
	r := report(t, unpricedFixture(), nil)
	b := rowJSON(t, r, "team-b")
	if b["unpriced"] != true || b["unpriced_gpu_hours"] != 10.0 {
		t.Errorf("team-b unpriced = %v, unpriced_gpu_hours = %v; want true and 10", b["unpriced"], b["unpriced_gpu_hours"])
	}
	for _, f := range dollarFields {
		if v, ok := b[f]; !ok || v != nil {
			t.Errorf("unpriced row %s = %v (present %v), want null", f, v, ok)
		}
	}
	for k, v := range b["gpu_cost_usd"].(map[string]any) {
		if v != nil {
			t.Errorf("unpriced row gpu_cost_usd.%s = %v, want null", k, v)
		}
	}
	if h := b["gpu_hours"].(map[string]any); h["allocated"] != 10.0 {
		t.Errorf("unpriced row keeps its hours: allocated = %v, want 10", h["allocated"])
	}
	a := rowJSON(t, r, "team-a")
	if v, ok := a["unpriced"]; !ok || v != false {
		t.Errorf("priced row unpriced = %v (present %v), want false", v, ok)
	}
	if v, ok := a["unpriced_gpu_hours"]; !ok || v != 0.0 {
		t.Errorf("priced row unpriced_gpu_hours = %v (present %v), want 0", v, ok)
	}
	// $2/GPU-hour × 10 h; the pod requests no CPU or memory.
	if a["total_cost_usd"] != 20.0 {
		t.Errorf("priced row total_cost_usd = %v, want 20", a["total_cost_usd"])
	}
}

func TestJSONTotalsNullWhenNothingIsPriced(t *testing.T) {
	s := unpricedFixture()
	s.Nodes, s.Pods = s.Nodes[1:], s.Pods[1:]
	r := report(t, s, nil)
	if !r.Totals.Unpriced {
		t.Fatal("totals.Unpriced = false with every node unpriced")
	}
	b, err := json.Marshal(r.Totals)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, f := range append([]string{"node_cost_usd"}, dollarFields...) {
		if v, ok := m[f]; !ok || v != nil {
			t.Errorf("totals %s = %v, want null", f, v)
		}
	}
	priced := report(t, unpricedFixture(), nil)
	if priced.Totals.Unpriced {
		t.Error("totals.Unpriced = true with one priced node")
	}
}

// The JSON mirrors must write every field the structs declare, under the
// same name and in the same order: they are the documented format.
func TestJSONCarriesEveryField(t *testing.T) {
	r := report(t, unpricedFixture(), nil)
	byPod := report(t, unpricedFixture(), func(s *settings) { s.ReportOptions.By = "pod" })
	var pod Row
	for _, x := range byPod.Rows {
		if x.Key != UnallocatedKey && x.Pods > 0 && !x.Unpriced {
			pod = x
		}
	}
	if pod.Workload != "team-a/Deployment/a" || !reflect.DeepEqual(pod.GPUUnits, []string{"priced/gpu0"}) {
		t.Fatalf("pod row %+v: want workload team-a/Deployment/a and unit priced/gpu0", pod)
	}
	ns := row(t, r, "team-a")
	if ns.Workload != "" || ns.GPUUnits != nil || ns.Vendor != "" {
		t.Errorf("a namespace row names a workload %q, units %v or a vendor %q", ns.Workload, ns.GPUUnits, ns.Vendor)
	}
	// A GPU model's row names its vendor (issue 28.4).
	byModel := report(t, unpricedFixture(), func(s *settings) { s.ReportOptions.By = "gpu-model" })
	models := 0
	for _, x := range byModel.Rows {
		if x.Key != UnallocatedKey && !strings.HasPrefix(x.Key, "(") {
			models++
			if x.Vendor != cluster.VendorNVIDIA {
				t.Errorf("model row %s: vendor %q, want %q", x.Key, x.Vendor, cluster.VendorNVIDIA)
			}
			pod.Vendor = x.Vendor // the field, carried below
		}
	}
	if models == 0 {
		t.Fatal("no GPU model row")
	}
	for _, v := range []any{pod, r.Totals} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got := string(b)
		last := -1
		for _, name := range jsonNames(reflect.TypeOf(v)) {
			i := strings.Index(got, `"`+name+`":`)
			if i < 0 {
				t.Errorf("%T JSON lacks %q: %s", v, name, got)
				continue
			}
			if i < last {
				t.Errorf("%T JSON writes %q out of struct order", v, name)
			}
			last = i
		}
	}
}

// jsonNames lists a struct's JSON names in order, inlining embedded
// structs; nested objects' own fields are not listed.
func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, jsonNames(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue // declared outside the format (Costs.UnheldCPUMemory)
		}
		out = append(out, name)
	}
	return out
}

// The idle leaderboard ranks dollars; a workload on an unpriced node has
// none, so it is left out rather than listed at $0 idle.
func TestUnpricedWorkloadsAreNotRankedAtZero(t *testing.T) {
	r := report(t, unpricedFixture(), nil)
	if len(r.TopIdle) != 1 || r.TopIdle[0].Key != "team-a/Deployment/a" {
		t.Errorf("top idle = %+v, want only the priced team-a/Deployment/a", r.TopIdle)
	}
}
