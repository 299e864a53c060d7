package prom

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
)

// dropPrefix removes every series whose metric name starts with prefix.
func dropPrefix(prefix string) func([]promtest.Series) []promtest.Series {
	return func(ss []promtest.Series) []promtest.Series {
		var out []promtest.Series
		for _, s := range ss {
			if !strings.HasPrefix(s.Labels["__name__"], prefix) {
				out = append(out, s)
			}
		}
		return out
	}
}

// heldUnits counts, per node, the GPU units pods hold in the snapshot
// (each holding once).
func heldUnits(s *cluster.Snapshot) map[string]int {
	out := map[string]int{}
	for _, p := range s.Pods {
		out[p.Node] += len(p.GPUs)
	}
	return out
}

// TestH1NoDCGMKeepsHoldingsFromTheInventory: with no DCGM_* series at
// all, every GPU pod still holds the units it requested (MIG slices
// included: the layout comes from GPU feature discovery's node labels),
// every holding is unmeasured (no activity), and the read is partial
// with the missing exporter named first.
func TestH1NoDCGMKeepsHoldingsFromTheInventory(t *testing.T) {
	t.Parallel()
	h, err := simulated()
	if err != nil {
		t.Fatal(err)
	}
	want := heldUnits(h.truth)
	if want["mig-a100-1"] == 0 {
		t.Fatal("the simulated cluster holds no MIG slices: the test checks nothing")
	}
	for _, read := range []string{ReadRemote, ReadAuto, ReadRaw, ReadRange} {
		t.Run(read, func(t *testing.T) {
			t.Parallel()
			srv := promtest.New(t, h.series)
			srv.Edit(dropPrefix("DCGM_"))
			opts := testOptions(srv.URL, read)
			opts.Window = h.truth.Window
			s, err := Build(context.Background(), opts)
			var pe *PartialError
			if !errors.As(err, &pe) || s == nil {
				t.Fatalf("Build: %v; want a partial snapshot", err)
			}
			if len(s.Partial) == 0 || !strings.Contains(s.Partial[0], "DCGM") {
				t.Errorf("partial %q: want the missing DCGM exporter named first", s.Partial)
			}
			got := heldUnits(s)
			for node, n := range want {
				if got[node] != n {
					t.Errorf("node %s: pods hold %d unit(s), the inventory says %d", node, got[node], n)
				}
			}
			for _, p := range s.Pods {
				for _, g := range p.GPUs {
					if g.Activity != nil {
						t.Fatalf("pod %s holds %s measured, with no DCGM series", p.Key(), g.UnitID)
					}
				}
			}
			if _, err := cluster.Prepare(s); err != nil {
				t.Errorf("Prepare: %v", err)
			}
		})
	}
}

// TestH1UnplacedPodsMakeTheReadPartial: a GPU pod that asks for more
// units than the inventory shows free on its node (no DCGM series to say
// which) makes the read partial, naming the pod.
func TestH1UnplacedPodsMakeTheReadPartial(t *testing.T) {
	t.Parallel()
	srv := promtest.New(t, promtest.Cluster())
	srv.Edit(func(ss []promtest.Series) []promtest.Series {
		for i := range ss {
			l := ss[i].Labels
			if strings.HasPrefix(l["__name__"], "kube_pod_container_resource_") && l["pod"] == "idle-0" && l["resource"] == "nvidia_com_gpu" {
				xs := append(ss[i].Samples[:0:0], ss[i].Samples...)
				for j := range xs {
					xs[j].V = 3 // gpu-1 has 2 GPUs, train-0 holds one
				}
				ss[i].Samples = xs
			}
		}
		return ss
	})
	s, err := buildFrom(t, srv, ReadRemote)
	var pe *PartialError
	if !errors.As(err, &pe) || s == nil {
		t.Fatalf("Build: %v; want a partial snapshot", err)
	}
	if len(s.Partial) != 1 || !strings.Contains(s.Partial[0], "1 GPU pod(s) (ml/idle-0) requested more GPU units") {
		t.Errorf("partial %q; want the unplaced pod named", s.Partial)
	}
}

// heldShare is, per pod, the share of a GPU its holdings add up to
// (Prepare's unit fractions): what allocation charges it per hour.
func heldShare(t *testing.T, s *cluster.Snapshot) map[string]float64 {
	t.Helper()
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	out := map[string]float64{}
	for _, pod := range p.Pods() {
		for _, h := range pod.GPUs {
			out[pod.Key()] += p.Index().Units[h.UnitID].Unit.Fraction
		}
	}
	return out
}

// TestH1NoDCGMKeepsEachPodsShare: with no DCGM series the MIG node's
// layout comes from the inventory, which says how many slices of each
// profile the node has, not which GPU holds which. The layout must not
// put more than a whole GPU's share on a GPU where the slices fit without
// (a GPU past one has its units' fractions scaled down), or the slices'
// holders are charged less than their profile's share and allocated
// GPU-hours turn unallocated: each pod's held share equals the truth's.
// Found against the real Prometheus (TestH1NoDCGMSeries: 246.6 GPU-h of
// 91,703 allocated at scale 4); the earlier spread-out layout put
// 3g.40gb + 1g.20gb + 1g.10gb ×2 on one A100.
func TestH1NoDCGMKeepsEachPodsShare(t *testing.T) {
	t.Parallel()
	h, err := simulated()
	if err != nil {
		t.Fatal(err)
	}
	srv := promtest.New(t, h.series)
	srv.Edit(dropPrefix("DCGM_"))
	opts := testOptions(srv.URL, ReadRemote)
	opts.Window = h.truth.Window
	s, err := Build(context.Background(), opts)
	var pe *PartialError
	if !errors.As(err, &pe) || s == nil {
		t.Fatalf("Build: %v; want a partial snapshot", err)
	}
	want, got := heldShare(t, h.truth), heldShare(t, s)
	mig := 0
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("pod %s holds %.4f of a GPU, the truth %.4f", k, got[k], w)
		}
		if w > 0 && w < 1 {
			mig++
		}
	}
	if mig == 0 {
		t.Fatal("no pod holds a fraction of a GPU: the test checks nothing")
	}
}
