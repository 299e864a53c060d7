package app

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// sameSnapshot compares every field, unexported ones (the usage
// summaries') included; missing hours are NaN in both.
var sameSnapshot = []cmp.Option{cmp.Exporter(func(reflect.Type) bool { return true }), cmpopts.EquateNaNs()}

// The service keeps DemoSnapshot's snapshot and records DemoSpans' spans
// against DemoSpans' own: the two simulations must be the same cluster.
func TestDemoSnapshotIsDemoSpansSnapshot(t *testing.T) {
	t.Parallel()
	d := &DemoSource{Seed: 7, Scale: 1}
	fromSpans, spans, err := DemoSpans(d, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := DemoSnapshot(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) == 0 || len(alone.View().Pods) == 0 {
		t.Fatalf("empty simulation: %d spans, %d pods", len(spans), len(alone.View().Pods))
	}
	if diff := cmp.Diff(fromSpans.View(), alone.View(), sameSnapshot...); diff != "" {
		t.Errorf("DemoSnapshot differs from DemoSpans' snapshot (-spans +alone):\n%s", diff)
	}
	other, err := DemoSnapshot(&DemoSource{Seed: 8, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(other.View(), alone.View(), sameSnapshot...) {
		t.Error("another seed gave the same snapshot: the comparison cannot fail")
	}
}

func TestDemoSnapshotRefusesABadScale(t *testing.T) {
	t.Parallel()
	if _, err := DemoSnapshot(&DemoSource{Seed: 1, Scale: -1}); err == nil {
		t.Error("scale -1 was accepted")
	}
}
