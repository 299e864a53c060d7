//go:build integration

package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpushape"
	"github.com/gpuwise/gpuwise/internal/packing"
)

// planCase is one plan to verify, with a short id that prefixes its
// nodes and names its namespaces.
type planCase struct {
	id, what string
	plan     *packing.Plan
}

// planCases are the demo plan (exactly what `gpuwise plan --demo` prints),
// a simulated cluster of another seed through the same snapshot →
// right-sizing → plan path, generated problems of three sizes that stress
// every constraint kind, each with probe workloads that fit nowhere, and
// a cluster where the pod count binds.
func planCases(t *testing.T) []planCase {
	t.Helper()
	demo := simPlan(t, app.DefaultDemo().Seed)
	sameAsCLI(t, demo)
	cases := []planCase{{id: "demo", what: "gpuwise plan --demo", plan: demo}}
	cases = append(cases, planCase{id: "sim2", what: "simulated cluster seed 2", plan: simPlan(t, 2)})
	for _, g := range []struct {
		seed        uint64
		nodes, pods int
	}{{1, 6, 5}, {2, 9, 5}, {3, 12, 4}} {
		p := genCluster(g.seed, g.nodes, g.pods)
		pl, err := packing.Solve(p)
		if err != nil {
			t.Fatalf("generated cluster %d: %v", g.seed, err)
		}
		cases = append(cases, planCase{id: fmt.Sprintf("gen%d", g.seed),
			what: fmt.Sprintf("generated cluster seed %d, %d nodes, ~%d pods per node, with probes", g.seed, g.nodes, g.pods), plan: pl})
	}
	pl, err := packing.Solve(manySmallPods())
	if err != nil {
		t.Fatalf("many small pods: %v", err)
	}
	cases = append(cases, planCase{id: "pods", what: "3 L4 nodes of 12 pod slots, 11 pods each (pod count binds)", plan: pl})
	covered(t, cases)
	return cases
}

// covered fails when the cases stop exercising what the test claims: kept
// nodes with MIG layouts, time-sliced nodes, whole GPUs, and unplaced
// workloads for each reason the probes stand for.
func covered(t *testing.T, cases []planCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		for _, n := range c.plan.Nodes {
			for _, g := range n.GPUs {
				seen["gpu mode "+g.Mode] = true
			}
		}
		for _, u := range c.plan.Unplaced {
			seen["unplaced: "+strings.Join(schedulerWords(u.Reason), " | ")] = true
		}
	}
	for _, want := range []string{"gpu mode mig", "gpu mode time-slice", "gpu mode whole",
		"unplaced: untolerated taint", "unplaced: didn't match Pod's node affinity/selector", "unplaced: Insufficient cpu",
		"unplaced: Insufficient memory", "unplaced: Insufficient nvidia.com/gpu", "unplaced: Insufficient",
		"unplaced: Insufficient nvidia.com/mig- | didn't match Pod's node affinity/selector"} {
		if !seen[want] {
			t.Errorf("no case covers %q", want)
		}
	}
}

// manySmallPods is a cluster where the pod limit binds before CPU, memory
// or GPUs: 3 four-GPU L4 nodes of 12 pod slots, each running 10 pods of
// 50m CPU and 128 MiB beside a whole-GPU pod.
func manySmallPods() *packing.Problem {
	p := &packing.Problem{}
	slots := 12
	for i := range 3 {
		name := fmt.Sprintf("n%d-g6x4", i)
		p.Nodes = append(p.Nodes, packing.Node{Name: name, Pool: "g6x4", Model: "L4", GPUs: 4, CPUMilli: 48000,
			MemoryBytes: 192 << 30, MaxPods: &slots, USDPerHour: 4.60, Priced: true, Labels: map[string]string{hostname: name}})
		for j := range 11 {
			w := packing.Workload{ID: fmt.Sprintf("small-%d-%02d", i, j), Node: name, CPUMilli: 50, MemoryBytes: 128 << 20,
				Demand: packing.Demand{Kind: packing.NoGPU}}
			if j == 0 {
				w.Demand, w.Models = packing.Demand{Kind: packing.Whole, GPUs: 1}, []string{"L4"}
			}
			w.Group = w.ID
			p.Workloads = append(p.Workloads, w)
		}
	}
	return p
}

// simPlan is the CLI's plan path (the app layer's Plan use case) on a
// simulated cluster: right-sizing with the default policy and the
// embedded prices, then the planner.
func simPlan(t *testing.T, seed uint64) *packing.Plan {
	t.Helper()
	req := app.DefaultPlanRequest()
	req.Data.Source = app.Source{Demo: &app.DemoSource{Seed: seed, Scale: 1}}
	res, err := app.New(time.Now).Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.Plan
}

// sameAsCLI makes sure the demo case is the plan users see.
func sameAsCLI(t *testing.T, pl *packing.Plan) {
	t.Helper()
	out, errOut, code := execute(t, "plan", "--demo", "-o", "json")
	if code != cli.ExitOK {
		t.Fatalf("plan --demo: exit %d: %s", code, errOut)
	}
	mine, err := json.Marshal(pl)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mine, &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatal("the demo case's plan differs from `gpuwise plan --demo -o json`; build it the way the CLI does")
	}
}

// genPool is a node shape of the generated clusters.
type genPool struct {
	name, model string
	gpus        int
	cpu, memGiB int64
	usd         float64
	taints      []cluster.Taint
}

var (
	nvTaint   = cluster.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}
	mlTaint   = cluster.Taint{Key: "dedicated", Value: "ml", Effect: "NoExecute"}
	spotTaint = cluster.Taint{Key: "spot", Value: "true", Effect: "PreferNoSchedule"}
)

// genPools: whole-GPU and MIG pools with NoSchedule and NoExecute taints,
// an untainted L4 pool with a PreferNoSchedule taint (never blocks), a
// CPU- and memory-lean A100 pool (8 GPUs, 24 CPUs) where CPU binds first,
// and 1-GPU T4 nodes.
var genPools = []genPool{
	{"p5", "H100-80GB", 8, 192, 2048, 55.04, []cluster.Taint{nvTaint}},
	{"p4de", "A100-80GB", 8, 96, 1152, 40.97, []cluster.Taint{nvTaint, mlTaint}},
	{"lean", "A100-80GB", 8, 24, 96, 30.00, []cluster.Taint{nvTaint}},
	{"g6x4", "L4", 4, 48, 192, 4.60, []cluster.Taint{spotTaint}},
	{"g4dn", "T4", 1, 4, 16, 0.53, nil},
}

var genProfiles = []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}

// genCluster builds a problem whose pods all run on their nodes now (each
// fits where it is), with every GPU shape but milli shares, tolerations in
// every form, selectors, and the probes of probes().
func genCluster(seed uint64, nodes, podsPerNode int) *packing.Problem {
	rng := rand.New(rand.NewPCG(seed, 99))
	p := &packing.Problem{}
	for i := range nodes {
		ps := genPools[i%len(genPools)]
		name := fmt.Sprintf("n%02d-%s", i, ps.name)
		n := packing.Node{Name: name, Pool: ps.name, Model: ps.model, GPUs: ps.gpus, CPUMilli: ps.cpu * 1000,
			MemoryBytes: ps.memGiB << 30, USDPerHour: ps.usd, Priced: true, Taints: ps.taints,
			Labels: map[string]string{"kubernetes.io/hostname": name, "pool": ps.name, "zone": fmt.Sprint("z", i%2)}}
		p.Nodes = append(p.Nodes, n)
		budget := float64(n.GPUs) * (0.2 + 0.5*rng.Float64())
		cpu, mem := n.CPUMilli, n.MemoryBytes
		for j, try := 0, 0; j < podsPerNode && try < 4*podsPerNode; try++ {
			w := genWorkload(rng, &n, fmt.Sprintf("w-%02d-%02d", i, j))
			f := w.Demand.Fraction(genModel(n.Model))
			if f > budget || w.CPUMilli > cpu || w.MemoryBytes > mem {
				continue
			}
			j++
			budget, cpu, mem = budget-f, cpu-w.CPUMilli, mem-w.MemoryBytes
			p.Workloads = append(p.Workloads, w)
		}
	}
	p.Workloads = append(p.Workloads, probes(p)...)
	return p
}

func genModel(name string) gpushape.Model {
	m, _ := gpushape.Lookup(name)
	return m
}

// genWorkload is one pod that runs on n now and tolerates its taints
// (a scheduler would have refused it otherwise).
func genWorkload(rng *rand.Rand, n *packing.Node, id string) packing.Workload {
	w := packing.Workload{ID: id, Group: id, Node: n.Name, CPUMilli: 100 * (1 + rng.Int64N(40)),
		MemoryBytes: (1 + rng.Int64N(16)) << 30, Tolerations: genTolerations(rng, n.Taints)}
	if n.Pool == "lean" {
		w.CPUMilli = 2000 + 1000*rng.Int64N(4) // CPU binds before GPUs here
	}
	switch r := rng.IntN(10); {
	case r == 0:
		w.NodeSelector = map[string][]string{"zone": {n.Labels["zone"]}}
	case r == 1:
		w.NodeSelector = map[string][]string{"zone": {"z0", "z1"}, "pool": nil}
	case r == 2 && rng.IntN(4) == 0:
		w.NodeSelector = map[string][]string{"kubernetes.io/hostname": {n.Name}}
	}
	mig := n.Model == "H100-80GB" || n.Model == "A100-80GB"
	switch r := rng.IntN(100); {
	case r < 15:
		w.Demand = packing.Demand{Kind: packing.NoGPU}
		return w
	case r < 45 || (!mig && r < 70):
		w.Demand = packing.Demand{Kind: packing.Whole, GPUs: min([]int{1, 1, 1, 2, 4, 8}[rng.IntN(6)], n.GPUs)}
	case mig:
		w.Demand = packing.Demand{Kind: packing.MIG, Profile: genProfiles[rng.IntN(len(genProfiles))]}
		if rng.IntN(3) == 0 {
			w.Current = packing.Demand{Kind: packing.Whole, GPUs: 1} // right-sized from a whole GPU
		}
	default:
		w.Demand = packing.Demand{Kind: packing.TimeSlice, Replicas: []int{2, 4, 4, 8}[rng.IntN(4)],
			Class: []string{"dev", "batch"}[rng.IntN(2)]}
	}
	w.Models = []string{n.Model}
	if rng.IntN(8) == 0 {
		w.Pinned, w.PinReason = true, "bare pod"
	}
	return w
}

// genTolerations tolerates every blocking taint of the node, in one of
// the forms Kubernetes accepts, and sometimes more than needed.
func genTolerations(rng *rand.Rand, taints []cluster.Taint) []cluster.Toleration {
	if rng.IntN(12) == 0 {
		return []cluster.Toleration{{Operator: "Exists"}} // tolerates everything
	}
	var out []cluster.Toleration
	for _, t := range taints {
		if t.Effect == "PreferNoSchedule" {
			continue
		}
		switch rng.IntN(3) {
		case 0:
			out = append(out, cluster.Toleration{Key: t.Key, Operator: "Exists"})
		case 1:
			out = append(out, cluster.Toleration{Key: t.Key, Operator: "Equal", Value: t.Value, Effect: t.Effect})
		default:
			out = append(out, cluster.Toleration{Key: t.Key, Value: t.Value}) // operator defaults to Equal
		}
	}
	if rng.IntN(3) == 0 {
		out = append(out, cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"})
	}
	return out
}

// probes are workloads not running yet that the plan must list as
// unplaced, one per reason a pod fits nowhere; the scheduler must leave
// each Pending with the matching FailedScheduling reason.
func probes(p *packing.Problem) []packing.Workload {
	tolerateAll := []cluster.Toleration{{Operator: "Exists"}}
	gb := int64(1) << 30
	out := []packing.Workload{
		{ID: "probe-taint", Demand: packing.Demand{Kind: packing.Whole, GPUs: 1}, Models: []string{"H100-80GB"}, CPUMilli: 100, MemoryBytes: gb},
		{ID: "probe-selector", Demand: packing.Demand{Kind: packing.NoGPU}, NodeSelector: map[string][]string{"zone": {"z9"}},
			Tolerations: tolerateAll, CPUMilli: 100, MemoryBytes: gb},
		{ID: "probe-cpu", Demand: packing.Demand{Kind: packing.NoGPU}, Tolerations: tolerateAll, CPUMilli: 500_000, MemoryBytes: gb},
		{ID: "probe-memory", Demand: packing.Demand{Kind: packing.NoGPU}, Tolerations: tolerateAll, CPUMilli: 100, MemoryBytes: 8192 * gb},
		{ID: "probe-gpus", Demand: packing.Demand{Kind: packing.Whole, GPUs: 16}, Tolerations: tolerateAll, CPUMilli: 100, MemoryBytes: gb},
		{ID: "probe-mig-on-l4", Demand: packing.Demand{Kind: packing.MIG, Profile: "1g.10gb"}, Models: []string{"L4"},
			Tolerations: tolerateAll, CPUMilli: 100, MemoryBytes: gb},
	}
	// No room: one more whole T4 than the cluster has T4 GPUs.
	t4 := 0
	for _, n := range p.Nodes {
		if n.Model == "T4" {
			t4 += n.GPUs
		}
	}
	for i := range t4 + 1 {
		out = append(out, packing.Workload{ID: fmt.Sprintf("probe-room-%d", i), Demand: packing.Demand{Kind: packing.Whole, GPUs: 1},
			Models: []string{"T4"}, Tolerations: tolerateAll, CPUMilli: 100, MemoryBytes: gb})
	}
	for i := range out {
		out[i].Group = out[i].ID
	}
	return out
}
