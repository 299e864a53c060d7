package tally

import (
	"reflect"
	"testing"
)

// Add sums every field but Pods, which keeps the most seen in one cycle;
// Fields lists every field once, so Add misses none.
func TestAddSumsAndPodsTakeTheLarger(t *testing.T) {
	a := Values{Seconds: 600, Pods: 3, GPUAllocatedHours: 1, TotalUSD: 2, OOMKills: 1}
	a.Add(Values{Seconds: 600, Pods: 2, GPUAllocatedHours: 0.5, TotalUSD: 1, OOMKills: 2})
	want := Values{Seconds: 1200, Pods: 3, GPUAllocatedHours: 1.5, TotalUSD: 3, OOMKills: 3}
	if a != want {
		t.Errorf("Add = %+v, want %+v", a, want)
	}
	var v Values
	if n, fields := len(v.Fields()), reflect.TypeOf(v).NumField(); n != fields {
		t.Errorf("Fields lists %d of %d fields", n, fields)
	}
}

func TestUtilizationAndPriced(t *testing.T) {
	if u := (Values{GPUAllocatedHours: 2, GPUUnmeasuredHours: 2}).Utilization(); u != nil {
		t.Errorf("nothing measured: utilization %v, want none (not 0%%)", *u)
	}
	if u := (Values{GPUAllocatedHours: 4, GPUUnmeasuredHours: 2, GPUActiveHours: 1}).Utilization(); u == nil || *u != 0.5 {
		t.Errorf("utilization %v, want 0.5 of the measured hours", u)
	}
	if (Values{GPUAllocatedHours: 2, UnpricedGPUHours: 2}).Priced() {
		t.Error("every hour unpriced, yet priced")
	}
	if !(Values{GPUAllocatedHours: 2, UnpricedGPUHours: 1}).Priced() || !(Values{}).Priced() {
		t.Error("partly priced (or empty) values are not priced")
	}
}
