package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// Changes carried out leave a snapshot Prepare accepts: the node gone (or
// replaced by a spot one) at the hour, its GPU pods going on elsewhere
// with their usage in the spans from then on; bad changes are refused
// naming the node.
func TestApplyChanges(t *testing.T) {
	cfg := DefaultConfig()
	s, spans, err := Spans(cfg, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	at := cfg.Start.Add(96 * time.Hour)
	var h100 []string
	for _, n := range s.Nodes {
		if n.GPUModel == "H100-80GB" && n.Capacity == cluster.OnDemand && n.Deleted.IsZero() {
			h100 = append(h100, n.Name)
		}
	}
	if len(h100) < 2 {
		t.Fatalf("on-demand H100 nodes %v", h100)
	}
	moved := 0
	for _, p := range s.Pods {
		if p.Node == h100[1] && len(p.GPUs) > 0 && (p.End.IsZero() || p.End.After(at)) && !p.Start.After(at) {
			moved++
		}
	}
	if err := ApplySpans(s, spans, []Change{{Kind: MoveToSpot, Node: h100[1], At: at}, {Kind: RemoveNode, Node: h100[0], At: at}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cluster.Prepare(s); err != nil {
		t.Fatalf("the changed snapshot: %v", err)
	}
	var spot *cluster.Node
	for i := range s.Nodes {
		n := &s.Nodes[i]
		switch n.Name {
		case h100[0], h100[1]:
			if !n.Deleted.Equal(at) || n.EndReason != cluster.NodeScaledDown {
				t.Errorf("%s: deleted %v (%s), want at hour 96, scaled down", n.Name, n.Deleted, n.EndReason)
			}
		case h100[1] + "-spot":
			spot = n
		}
	}
	if spot == nil || spot.Capacity != cluster.Spot || !spot.Created.Equal(at) {
		t.Fatalf("the spot node: %+v", spot)
	}
	on, withUsage := 0, 0
	for _, p := range s.Pods {
		if p.Node == spot.Name && len(p.GPUs) > 0 {
			on++
			if sp := spans[100].Pods[rolling.PodKey(&p)]; sp != nil && len(sp.GPUs) > 0 {
				withUsage++
			}
		}
	}
	if on != moved || moved == 0 || withUsage == 0 {
		t.Errorf("%d pods on the spot node (%d with usage at hour 100), want the %d GPU pods that ran on %s at hour 96", on, withUsage, moved, h100[1])
	}
	for _, c := range []struct {
		ch   Change
		want string
	}{
		{Change{Kind: RemoveNode, Node: "nope", At: at}, `no node "nope"`},
		{Change{Kind: RemoveNode, Node: h100[0], At: cfg.Start.Add(-time.Hour)}, "not inside the window"},
		{Change{Kind: RemoveNode, Node: h100[0], At: at.Add(time.Hour)}, "gone by then"},
		{Change{Kind: "shrink", Node: spot.Name, At: at.Add(time.Hour)}, `unknown change "shrink"`},
	} {
		if err := Apply(s, []Change{c.ch}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.ch, err, c.want)
		}
	}
}
