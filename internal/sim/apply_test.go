package sim

import (
	"math"
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

// The workload changes leave a snapshot Prepare accepts, with their
// effect in the pods and the hourly series; bad ones are refused naming
// what to fix.
func TestApplyWorkloadChanges(t *testing.T) {
	cfg := DefaultConfig()
	at := cfg.Start.Add(96 * time.Hour)
	const chat, intent = "inference/Deployment/chat-llm", "inference/Deployment/intent-classifier"
	base, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	node := func(w string) string {
		for _, p := range base.Pods {
			if p.WorkloadKey() == w && (p.End.IsZero() || p.End.After(at)) {
				return p.Node
			}
		}
		t.Fatalf("no pod of %s", w)
		return ""
	}
	oom := func(s *cluster.Snapshot, w string, from int) float64 {
		wh := s.Hourly.Find(w)
		return wh.OOMKills[from-wh.From:].Sum()
	}
	for _, c := range []struct {
		name  string
		ch    Change
		check func(t *testing.T, s *cluster.Snapshot)
	}{
		{"right-sized below the working set OOMs", Change{Kind: Resize, Workload: chat, At: at, CPUMilli: 1000, MemoryBytes: 1 << 30}, func(t *testing.T, s *cluster.Snapshot) {
			n := 0
			for _, p := range s.Pods {
				if p.WorkloadKey() == chat && p.End.IsZero() {
					if c := p.Containers[containerOf(&p, "")]; c.CPURequestMilli != 1000 || c.MemoryRequest != 1<<30 || !p.Start.Equal(at) {
						t.Errorf("%s: %d m, %d B from %v", p.Name, c.CPURequestMilli, c.MemoryRequest, p.Start)
					}
					n++
				}
			}
			if want := float64(n) * OOMPerHour * 72; n == 0 || math.Abs(oom(s, chat, 96)-want) > 0.5 {
				t.Errorf("%d pods, %.1f OOM kills after hour 96, want %.0f", n, oom(s, chat, 96), want)
			}
		}},
		{"MIG onto 1g.10gb slices", Change{Kind: ToMIG, Workload: intent, Node: node(intent), Profile: "1g.10gb", At: at}, func(t *testing.T, s *cluster.Snapshot) {
			wh, was := s.Hourly.Find(intent), base.Hourly.Find(intent)
			i := 100 - wh.From
			if got, want := wh.GPUHeld[i], was.GPUHeld[i]/7; math.Abs(float64(got-want)) > 1e-4 || wh.GPUActive[i] != was.GPUActive[i] {
				t.Errorf("hour 100: held %.4f (want %.4f), active %.4f (was %.4f)", got, want, wh.GPUActive[i], was.GPUActive[i])
			}
			if oom(s, intent, 96) != oom(base, intent, 96) {
				t.Error("6 GiB fits 1g.10gb: no OOM kills expected")
			}
		}},
		{"autoscaled every night: three mornings after hour 96 (a midnight)", Change{Kind: Autoscale, Node: node(intent), At: at}, func(t *testing.T, s *cluster.Snapshot) {
			ups := 0
			for _, n := range s.Nodes {
				if strings.HasPrefix(n.Name, node(intent)+"-up") {
					ups++
					if n.Created.UTC().Hour() != NightHours {
						t.Errorf("%s starts at %v", n.Name, n.Created)
					}
				}
			}
			wh := s.Hourly.Find(intent)
			if ups != 3 || wh.Pods[100-wh.From] != 0 || wh.Pods[110-wh.From] == 0 {
				t.Errorf("%d morning nodes, pods at hour 100 %v and 110 %v", ups, wh.Pods[100-wh.From], wh.Pods[110-wh.From])
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, spans, err := Spans(cfg, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if err := ApplySpans(s, spans, []Change{c.ch}); err != nil {
				t.Fatal(err)
			}
			if _, err := cluster.Prepare(s); err != nil {
				t.Fatalf("the changed snapshot: %v", err)
			}
			c.check(t, s)
		})
	}
	for _, c := range []struct {
		ch   Change
		want string
	}{
		{Change{Kind: Resize, Workload: chat, At: at}, "give the new CPU"},
		{Change{Kind: Resize, Workload: "ns/Deployment/none", At: at, CPUMilli: 1, MemoryBytes: 1}, "no pod of ns/Deployment/none"},
		{Change{Kind: Resize, Workload: chat, At: at.Add(time.Minute), CPUMilli: 1, MemoryBytes: 1}, "not on a whole hour"},
		{Change{Kind: ToMIG, Workload: intent, Node: node(intent), Profile: "9g.90gb", At: at}, "cuts A100-80GB and H100-80GB GPUs into 1g.10gb"},
		{Change{Kind: ToMIG, Workload: "ns/Deployment/none", Node: node(intent), Profile: "1g.10gb", At: at}, "its pods hold 0 GPUs"},
	} {
		s, err := Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := Apply(s, []Change{c.ch}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.ch, err, c.want)
		}
	}
}
