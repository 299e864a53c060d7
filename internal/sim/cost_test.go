package sim

import (
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// TestDemoShowsLowUtilization checks the demo tells the story it exists
// for: GPUs busy 10–35% of the time they are held and provisioned, with
// totals that reconcile. Several seeds guard against a lucky one.
func TestDemoShowsLowUtilization(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3, 42} {
		cfg := DefaultConfig()
		cfg.Seed = seed
		s, err := Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := cluster.Prepare(s)
		if err != nil {
			t.Fatalf("seed %d: Prepare: %v", seed, err)
		}
		opts := cost.DefaultOptions()
		a, err := cost.Allocate(p, pricing.Embedded(), opts)
		if err != nil {
			t.Fatalf("seed %d: Allocate: %v", seed, err)
		}
		r, err := cost.NewReport(a, cost.DefaultReportOptions())
		if err != nil {
			t.Fatalf("seed %d: NewReport: %v", seed, err)
		}
		if err := r.Reconcile(); err != nil {
			t.Errorf("seed %d: report does not reconcile: %v", seed, err)
		}
		tot := r.Totals
		for _, u := range []struct {
			what string
			v    *float64
		}{{"of allocated", tot.GPUUtilization}, {"of provisioned", tot.GPUUtilizationOfProvisioned}} {
			if u.v == nil || *u.v < 0.10 || *u.v > 0.35 {
				t.Errorf("seed %d: utilization %s = %v, want 10-35%%", seed, u.what, fmtPtr(u.v))
			}
		}
		if got := a.UnpricedNodes(); len(got) != 1 || !strings.HasPrefix(got[0], "onprem-dgx-1:") {
			t.Errorf("seed %d: unpriced nodes %q, want just onprem-dgx-1", seed, got)
		}
		if seed == 1 {
			t.Logf("demo: %d pods, utilization %.1f%% of allocated, %.1f%% of provisioned, $%.0f/month",
				tot.Pods, 100**tot.GPUUtilization, 100**tot.GPUUtilizationOfProvisioned, tot.MonthlyCost)
		}
	}
}

func fmtPtr(u *float64) any {
	if u == nil {
		return "nil"
	}
	return *u
}

// TestInstanceTypesArePriced checks every cloud GPU node against its
// catalog row: the catalog prices it and agrees on GPUs, vCPUs and memory.
func TestInstanceTypesArePriced(t *testing.T) {
	t.Parallel()
	cat := pricing.Embedded()
	for _, n := range demoSnapshot(t).Nodes {
		if !n.HasGPUs() {
			continue
		}
		e, ok := cat.Lookup(n.Cloud, n.Region, n.InstanceType)
		if n.Cloud == "" {
			if ok {
				t.Errorf("on-prem node %s (%s) has a catalog row; it should exercise the unpriced path", n.Name, n.InstanceType)
			}
			continue
		}
		if !ok {
			t.Errorf("node %s: catalog has no row for %s %s %s", n.Name, n.Cloud, n.Region, n.InstanceType)
			continue
		}
		if int(e.GPUCount) != len(n.GPUs) || int64(e.VCPUs)*1000 != n.CPUMilli || int64(e.MemoryGiB)<<30 != n.MemoryBytes || e.GPUModel != n.GPUModel {
			t.Errorf("node %s: %d × %s, %d mCPU, %d B; catalog row %+v", n.Name, len(n.GPUs), n.GPUModel, n.CPUMilli, n.MemoryBytes, e)
		}
	}
}

// TestMIGLayoutsAreValid checks every MIG GPU's layout fits its slices,
// that fractions sum to at most 1, and that some slices stay free.
func TestMIGLayoutsAreValid(t *testing.T) {
	t.Parallel()
	s := demoSnapshot(t)
	held := map[string]bool{}
	for _, p := range s.Pods {
		for _, h := range p.GPUs {
			held[h.UnitID] = true
		}
	}
	migGPUs, free := 0, 0
	for _, n := range s.Nodes {
		for _, g := range n.GPUs {
			if g.Sharing != cluster.MIG {
				continue
			}
			migGPUs++
			var compute, memory int
			var sum float64
			for _, u := range g.Units {
				compute, memory, sum = compute+u.ComputeSlices, memory+u.MemorySlices, sum+u.Fraction
				if sh, ok := migShapes[u.Profile]; !ok || sh != [2]int{u.ComputeSlices, u.MemorySlices} {
					t.Errorf("%s: profile %q with %d/%d slices", u.ID, u.Profile, u.ComputeSlices, u.MemorySlices)
				}
				if !held[u.ID] {
					free++
				}
			}
			if compute > 7 || memory > 8 || sum > 1+1e-9 || sum <= 0 {
				t.Errorf("%s gpu %d: %d/7 compute, %d/8 memory slices, fractions sum to %g", n.Name, g.Index, compute, memory, sum)
			}
		}
	}
	if migGPUs == 0 || free == 0 {
		t.Errorf("%d MIG GPUs with %d free instances; want some of each", migGPUs, free)
	}
}

// TestUnmeasuredPodsAreNoted checks that pods without a GPU series sit on
// a node the notes name, and still have CPU and memory usage.
func TestUnmeasuredPodsAreNoted(t *testing.T) {
	t.Parallel()
	s := demoSnapshot(t)
	notes := strings.Join(s.Notes, "\n")
	unmeasured := 0
	for _, p := range s.Pods {
		if len(p.GPUs) == 0 || p.GPUs[0].Activity != nil {
			continue
		}
		unmeasured++
		if !strings.Contains(notes, p.Node) {
			t.Errorf("unmeasured pod %s on %s, which the notes do not name: %q", p.Key(), p.Node, s.Notes)
		}
		if p.Containers[0].CPU == nil || p.Containers[0].CPU.Samples == 0 {
			t.Errorf("unmeasured pod %s has no CPU usage either", p.Key())
		}
	}
	if unmeasured == 0 {
		t.Error("no unmeasured GPU pods")
	}
}
