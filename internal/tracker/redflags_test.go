package tracker

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

const flagWorkload = "ml/Deployment/inf"

// series is 48 hours: before for [0, 24), after for [24, 48).
func series(before, after float32) cluster.Series {
	s := make(cluster.Series, 48)
	for i := range s {
		s[i] = before
		if i >= 24 {
			s[i] = after
		}
	}
	return s
}

// flagFixture is a 48 h window with one applied action at hour 24 and
// the workload's hourly series.
func flagFixture(kind string, wh cluster.WorkloadHours, nodes []cluster.Node, pods []cluster.Pod) (*Plan, *view) {
	w := clustertest.Window(48)
	wh.Workload = flagWorkload
	if wh.Pods == nil {
		wh.Pods = series(1, 1)
	}
	s := &cluster.Snapshot{Window: w, Nodes: nodes, Pods: pods, Hourly: &cluster.Hourly{Workloads: []cluster.WorkloadHours{wh}}}
	a := &Action{ID: "x-aaaaaa", Lever: "x", Kind: kind, Status: Applied, AppliedAt: clustertest.At(24), FirstProposed: clustertest.At(12),
		Targets: []Target{{Kind: "workload", Name: flagWorkload, Model: "H100-80GB", Instance: "p5.48xlarge"}}}
	return &Plan{Cluster: "c", Actions: []*Action{a}}, newView(s, w)
}

// latencyBounds are vLLM's e2e latency buckets up to a minute.
var latencyBounds = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60}

// latencyHist is 48 hours of 1,000 requests an hour whose latency is
// exponential with a mean of 2 s before hour 24 and 2 s × scale after.
func latencyHist(scale float64) *cluster.LatencyHours {
	b := len(latencyBounds) + 1
	l := &cluster.LatencyHours{Metric: "vllm:e2e_request_latency_seconds", Bounds: latencyBounds, Counts: make(cluster.Series, 48*b)}
	for h := range 48 {
		mean := 2.0
		if h >= 24 {
			mean *= scale
		}
		prev := 0.0
		for j := range b {
			cdf := 1.0
			if j < len(latencyBounds) {
				cdf = 1 - math.Exp(-latencyBounds[j]/mean)
			}
			l.Counts[h*b+j] = float32(1000 * (cdf - prev))
			prev = cdf
		}
	}
	return l
}

// onlyAfter blanks the histogram's hours before hour 24 (no data, not
// zero).
func onlyAfter(l *cluster.LatencyHours) *cluster.LatencyHours {
	for i := range 24 * l.Buckets() {
		l.Counts[i] = float32(math.NaN())
	}
	return l
}

// spotNodes are n spot nodes interrupted within hour 30.
func spotNodes(n int) []cluster.Node {
	var out []cluster.Node
	for i := range n {
		nd := clustertest.Node(fmt.Sprintf("s%d", i)).GPUs(8, "H100-80GB").Instance("p5.48xlarge", cluster.Spot).
			Life(clustertest.At(25), clustertest.At(30+float64(i)/60)).Obj()
		nd.EndReason = cluster.NodeSpotInterrupted
		out = append(out, nd)
	}
	return out
}

// Each red flag fires on its backfiring fixture and not on the clean
// one; a flag whose data is missing says which.
func TestRedFlagsFireOnTheirBackfire(t *testing.T) {
	busyPod := func(node string) cluster.Pod {
		return clustertest.Pod("ml", "inf-1").Owner("Deployment", "inf").On(node).Life(clustertest.At(26), time.Time{}).Holds(node+"/gpu0", 0.5, 3600).Obj()
	}
	mig := clustertest.Node("m1").MIG("H100-80GB", "1g.10gb", "1g.10gb").Obj()
	migPod := clustertest.Pod("ml", "inf-1").Owner("Deployment", "inf").On("m1").Life(clustertest.At(24), time.Time{}).Holds("m1/gpu0/1g.10gb-0", 0.5, 3600).Obj()
	migPod2 := clustertest.Pod("ml", "inf-2").Owner("Deployment", "inf").On("m1").Life(clustertest.At(24), time.Time{}).Holds("m1/gpu0/1g.10gb-1", 0.5, 3600).Obj()
	newNode := clustertest.Node("n-new").GPUs(1, "H100-80GB").Life(clustertest.At(30), time.Time{}).Obj()
	for _, c := range []struct {
		name       string
		kind, flag string
		wh         cluster.WorkloadHours
		nodes      []cluster.Node
		pods       []cluster.Pod
		want       string
		wantDetail string
	}{
		{name: "MIG profiles too large: 10 % utilisation", kind: lever.KindMIG, flag: FlagLowUtilization,
			wh: cluster.WorkloadHours{GPUMeasured: series(1, 0.5), GPUActive: series(0.1, 0.05)}, want: Firing, wantDetail: "10.0 %"},
		{name: "MIG profiles fit: 40 % utilisation", kind: lever.KindMIG, flag: FlagLowUtilization,
			wh: cluster.WorkloadHours{GPUMeasured: series(1, 0.5), GPUActive: series(0.1, 0.2)}, want: Clear},
		{name: "no activity measured", kind: lever.KindMIG, flag: FlagLowUtilization,
			wh: cluster.WorkloadHours{GPUMeasured: series(0, 0)}, want: NoData, wantDetail: "cannot be checked"},
		{name: "right-sized too far: OOM kills after", kind: lever.KindResize, flag: FlagOOMKillsUp,
			wh: cluster.WorkloadHours{OOMKills: series(0, 1)}, want: Firing, wantDetail: "24 OOM kill(s)"},
		{name: "right-sized with room: no OOM kills", kind: lever.KindResize, flag: FlagOOMKillsUp,
			wh: cluster.WorkloadHours{OOMKills: series(0, 0)}, want: Clear},
		{name: "memory-pressured before and after alike", kind: lever.KindResize, flag: FlagOOMKillsUp,
			wh: cluster.WorkloadHours{OOMKills: series(1.5, 1.5)}, want: Clear},
		{name: "no OOM counts", kind: lever.KindResize, flag: FlagOOMKillsUp, want: NoData},
		{name: "MIG too small: OOM kills after", kind: lever.KindMIG, flag: FlagOOMKillsUp,
			wh: cluster.WorkloadHours{OOMKills: series(0, 2)}, want: Firing, wantDetail: "2.00 an hour"},
		{name: "6 spot interruptions in an hour", kind: lever.KindSpot, flag: FlagSpotInterruptions, nodes: spotNodes(6), want: Firing, wantDetail: "at most 6"},
		{name: "5 spot interruptions in an hour", kind: lever.KindSpot, flag: FlagSpotInterruptions, nodes: spotNodes(5), want: Clear},
		{name: "serving workload without a histogram, after MIG", kind: lever.KindMIG, flag: FlagLatencyUp,
			wh: cluster.WorkloadHours{Server: cluster.ServerVLLM}, want: NoData, wantDetail: "1 of its workloads serve requests (vllm) but have no latency histogram (vllm:e2e_request_latency_seconds_bucket was not found)"},
		{name: "Triton: a mean only", kind: lever.KindResize, flag: FlagLatencyUp,
			wh: cluster.WorkloadHours{Server: cluster.ServerTriton}, want: NoData, wantDetail: "a mean, no quantiles"},
		{name: "latency after right-sizing, no server", kind: lever.KindResize, flag: FlagLatencyUp, want: NoData, wantDetail: "no latency metrics"},
		{name: "MIG slice too small: latency +25 %", kind: lever.KindMIG, flag: FlagLatencyUp,
			wh: cluster.WorkloadHours{Server: cluster.ServerVLLM, Latency: latencyHist(1.25)}, want: Firing, wantDetail: "p99"},
		{name: "MIG: latency +6 %, within 10 %", kind: lever.KindMIG, flag: FlagLatencyUp,
			wh: cluster.WorkloadHours{Server: cluster.ServerVLLM, Latency: latencyHist(1.06)}, want: Clear, wantDetail: "p50"},
		{name: "right-sized: latency +6 %, over 5 %", kind: lever.KindResize, flag: FlagLatencyUp,
			wh: cluster.WorkloadHours{Server: cluster.ServerVLLM, Latency: latencyHist(1.06)}, want: Firing, wantDetail: "p95"},
		{name: "latency measured only since the change", kind: lever.KindResize, flag: FlagLatencyUp,
			wh: cluster.WorkloadHours{Server: cluster.ServerVLLM, Latency: onlyAfter(latencyHist(1))}, want: NoData, wantDetail: "no requests on one side"},
		{name: "right-sized: latency as before", kind: lever.KindResize, flag: FlagLatencyUp,
			wh: cluster.WorkloadHours{Server: cluster.ServerVLLM, Latency: latencyHist(1)}, want: Clear, wantDetail: "(+0.0 %)"},
		{name: "MIG instances left unused", kind: lever.KindMIG, flag: FlagCostUp, nodes: []cluster.Node{mig},
			pods: []cluster.Pod{migPod}, want: Firing, wantDetail: "1 MIG instance(s)"},
		{name: "every MIG instance used", kind: lever.KindMIG, flag: FlagCostUp, nodes: []cluster.Node{mig},
			pods: []cluster.Pod{migPod, migPod2}, want: Clear},
		{name: "autoscaler started an idle node", kind: lever.KindAutoscale, flag: FlagCostUp, nodes: []cluster.Node{newNode},
			pods: []cluster.Pod{clustertest.Pod("ml", "inf-1").Owner("Deployment", "inf").On("n-old").Life(clustertest.At(26), time.Time{}).Obj()}, want: Firing, wantDetail: "1 GPU node(s) started"},
		{name: "autoscaler's new node busy", kind: lever.KindAutoscale, flag: FlagCostUp, nodes: []cluster.Node{newNode},
			pods: []cluster.Pod{busyPod("n-new")}, want: Clear},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, v := flagFixture(c.kind, c.wh, c.nodes, c.pods)
			var got *Flag
			fs := p.watch(v)
			for i := range fs {
				if fs[i].Name == c.flag {
					got = &fs[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s flag among %+v", c.flag, fs)
			}
			t.Logf("%s: %s", got.Status, got.Detail)
			if got.Status != c.want || !strings.Contains(got.Detail, c.wantDetail) || got.Action != "x-aaaaaa" || !got.Since.Equal(clustertest.At(24)) {
				t.Errorf("%s: %s (%s), want %s with %q, blaming x-aaaaaa since hour 24", c.flag, got.Status, got.Detail, c.want, c.wantDetail)
			}
			if got.Status == Firing && got.Advice == "" {
				t.Errorf("%s fires without advice", c.flag)
			}
		})
	}
}

// The OOM advice follows the seeds: add 10–20 % memory; killed more than
// twice, +10 % steps.
func TestOOMAdvice(t *testing.T) {
	few := cluster.WorkloadHours{OOMKills: series(0, 0)}
	few.OOMKills[30], few.OOMKills[31] = 1, 1
	for _, c := range []struct {
		wh   cluster.WorkloadHours
		want string
		not  string
	}{{few, "add 10–20 % memory", "+10 % steps"}, {cluster.WorkloadHours{OOMKills: series(0, 1)}, "+10 % steps", ""}} {
		p, v := flagFixture(lever.KindResize, c.wh, nil, nil)
		f := p.watch(v)[0]
		if f.Status != Firing || !strings.Contains(f.Advice, c.want) || (c.not != "" && strings.Contains(f.Advice, c.not)) {
			t.Errorf("%s: %q, want %q", f.Status, f.Advice, c.want)
		}
	}
}

// Actions not applied, commitments and the taint are not watched.
func TestRedFlagsOnlyAfterAppliedChanges(t *testing.T) {
	p, v := flagFixture(lever.KindResize, cluster.WorkloadHours{OOMKills: series(0, 1)}, nil, nil)
	p.Actions[0].Status = Pending
	p.Actions = append(p.Actions, &Action{ID: "commit-bbbbbb", Kind: lever.KindCommit, Status: Applied, AppliedAt: clustertest.At(24)})
	if fs := p.watch(v); len(fs) != 0 {
		t.Errorf("flags %+v, want none", fs)
	}
}

// A money action whose nodes cost more since fires the cost flag from the
// measured saving, its range wholly below zero.
func TestCostUpFromTheRealisedSaving(t *testing.T) {
	start := clustertest.At(0)
	p := &Plan{Cluster: "c", Updated: start.Add(96 * time.Hour), Baseline: &Baseline{At: start.Add(48 * time.Hour), Window: clustertest.Window(48)},
		Actions: []*Action{{ID: "spot-aaaaaa", Lever: "spot", Kind: lever.KindSpot, Status: Applied, AppliedAt: start.Add(48 * time.Hour),
			FirstProposed: start.Add(40 * time.Hour), Targets: []Target{{Kind: "node", Name: "a1", Instance: "p5"}}}}}
	for _, c := range []struct {
		name  string
		after float64
		want  string
	}{{"the spot node costs more", 12, Firing}, {"the spot node saves", 4, ""}} {
		hs := hours(start, 96, map[string]func(int) float64{"a1": func(h int) float64 {
			if h >= 48 {
				return c.after
			}
			return 10
		}}, 0, nil)
		pf := p.Realise(hs)
		var st string
		for _, f := range pf.Flags {
			if f.Name == FlagCostUp {
				st = f.Status
				if math.Abs(*f.Value-2*730) > 0.01 {
					t.Errorf("%s: cost up by %.2f, want 1460", c.name, *f.Value)
				}
			}
		}
		if st != c.want {
			t.Errorf("%s: cost flag %q, want %q", c.name, st, c.want)
		}
	}
}
