package kueue

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpurule"
	"github.com/gpuwise/gpuwise/internal/quota"
)

// ProductLabel is GPU feature discovery's node label for the GPU product
// ("NVIDIA-A100-SXM4-80GB"; with MIG's single strategy, the profile is
// part of it): the node label a ResourceFlavor selects its nodes by.
const ProductLabel = "nvidia.com/gpu.product"

// Resources a ClusterQueue must cover besides the GPUs: Kueue does not
// admit a workload asking a resource its queue does not cover.
const (
	ResourceCPU    = "cpu"
	ResourceMemory = "memory"
)

// SizeOptions tune the ClusterQueue sizing.
type SizeOptions struct {
	// Quota is the percentile and headroom `generate quota` sizes with,
	// and the exempt namespaces (no queue).
	Quota quota.Options
	// BatchNamespaces are globs over the namespaces whose long-lived GPU
	// workers are batch work to queue (capacity.DefaultBatchNamespaces),
	// beside the pods of Kueue's job kinds anywhere.
	BatchNamespaces []string
	// Cohort names the cohort every team's ClusterQueue joins.
	Cohort string
}

// Validate lists every problem.
func (o SizeOptions) Validate() error {
	var errs []error
	errs = append(errs, o.Quota.Validate())
	if o.Cohort == "" {
		errs = append(errs, errors.New("cohort: empty; name the cohort the teams' queues share, e.g. gpuwise-batch"))
	}
	return errors.Join(errs...)
}

// Sizing is what `generate kueue` writes: a ResourceFlavor per GPU
// product, a ClusterQueue per team with a nominal quota per flavor and
// resource sized from the team's measured need, borrowing and lending
// limits, and the pooling figures of the cohort.
type Sizing struct {
	Window     time.Duration `json:"window"`
	Percentile float64       `json:"percentile"`
	Headroom   float64       `json:"headroom"`
	Cohort     string        `json:"cohort"`
	Flavors    []Flavor      `json:"flavors"`
	Teams      []Team        `json:"teams"`
	// Pools are the cohort's GPU resources per flavor: what the teams'
	// separate peaks need against what their combined peak needs.
	Pools []Pool   `json:"pools"`
	Notes []string `json:"notes,omitempty"`
}

// Flavor is one ResourceFlavor: the nodes of one GPU product.
type Flavor struct {
	Name     string `json:"name"`
	GPUModel string `json:"gpu_model"`
	// NodeLabels select its nodes (ProductLabel); empty when its nodes
	// carry no product label (the flavor then matches any node).
	NodeLabels map[string]string `json:"node_labels,omitempty"`
	// Resources are the resources its queues cover: cpu, memory, then the
	// GPU resources, sorted.
	Resources []string `json:"resources"`
}

// Team is one namespace's ClusterQueue (and its LocalQueue).
type Team struct {
	Namespace string      `json:"namespace"`
	Quotas    []TeamQuota `json:"quotas"`
}

// TeamQuota is one flavor and resource of a team's queue. Units: the
// resource's (GPU units, CPU millicores, memory bytes).
type TeamQuota struct {
	Flavor   string `json:"flavor"`
	Resource string `json:"resource"`
	// Percentile and Peak are the team's time-weighted percentile and
	// peak of the units its batch pods requested at once; Nominal is the
	// quota: ceil(Percentile × (1 + headroom)), at least 1 (0 for a
	// resource the team never asked on this flavor).
	Percentile float64 `json:"percentile"`
	Peak       int64   `json:"peak"`
	Nominal    int64   `json:"nominal"`
	// LendingLimit is what the team lends the cohort: its nominal quota
	// above its median need (ceil of the time-weighted p50, which may be
	// 0), the part it uses less than half the time. BorrowingLimit is what it may borrow beyond its quota: the
	// cohort's combined nominal minus its own.
	LendingLimit   int64 `json:"lending_limit"`
	BorrowingLimit int64 `json:"borrowing_limit"`
}

// Pool is one flavor's GPU resource across the cohort.
type Pool struct {
	Flavor   string `json:"flavor"`
	Resource string `json:"resource"`
	// SeparatePeaks is Σ of the teams' peaks (what dedicated capacity per
	// team needs); CombinedPeak the peak of their sum (what a shared
	// cohort needs); FreedUnits the difference.
	SeparatePeaks int64 `json:"separate_peaks"`
	CombinedPeak  int64 `json:"combined_peak"`
	FreedUnits    int64 `json:"freed_units"`
	// SeparateNominal and CombinedNominal are the same for the sized
	// quotas: Σ of the teams' nominal quotas, and one quota sized on the
	// combined series.
	SeparateNominal int64 `json:"separate_nominal"`
	CombinedNominal int64 `json:"combined_nominal"`
}

// kueueKinds are the owner kinds Kueue's job integrations queue
// (pkg/controller/jobs): their pods are batch work wherever they run.
var kueueKinds = []string{"Job", "CronJob", "JobSet", "RayJob", "RayCluster", "PyTorchJob", "TFJob", "MPIJob",
	"XGBoostJob", "PaddleJob", "JAXJob", "TrainJob", "AppWrapper", "LeaderWorkerSet"}

// batchPod reports whether p is batch GPU work: a pod of one of Kueue's
// job kinds, one Kueue admitted, or a GPU worker in a batch namespace.
func (o SizeOptions) batchPod(p *cluster.Pod, admitted map[string]string) bool {
	if !gpurule.GPUResources.Pod(p) || slices.Contains(o.Quota.Exempt, p.Namespace) {
		return false
	}
	if _, ok := admitted[p.Key()]; ok {
		return true
	}
	return slices.Contains(kueueKinds, p.Owner.Kind) || cluster.MatchAny(o.BatchNamespaces, p.Namespace)
}

// series key: one team's (or, with team "", the cohort's) resource on
// one flavor.
type sizeKey struct{ team, flavor, resource string }

// Size sizes the teams' ClusterQueues from the window's batch GPU pods:
// each pod asks its requests from start to end on its node's flavor.
func Size(s *cluster.Prepared, o SizeOptions) (*Sizing, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	snap := s.View() // read-only
	w := snap.Window
	out := &Sizing{Window: w.End.Sub(w.Start), Percentile: o.Quota.Percentile, Headroom: o.Quota.Headroom, Cohort: o.Cohort}
	flavors := map[string]*Flavor{}
	series := map[sizeKey]*quota.Series{}
	add := func(k sizeKey, from, to time.Time, n int64) {
		for _, kk := range []sizeKey{k, {"", k.flavor, k.resource}} {
			if series[kk] == nil {
				series[kk] = quota.NewSeries(w)
			}
			series[kk].Add(from, to, n)
		}
	}
	admitted := snap.KueueAdmitted()
	var unbound []string
	for i := range snap.Pods {
		p := &snap.Pods[i]
		if !o.batchPod(p, admitted) {
			continue
		}
		n, ok := s.Index().Nodes[p.Node]
		if !ok {
			unbound = append(unbound, p.Key())
			continue
		}
		f := flavorOf(n, flavors)
		var cpu, mem int64
		for _, c := range p.Containers {
			cpu, mem = cpu+c.CPURequestMilli, mem+c.MemoryRequest
			for r, k := range c.GPURequests {
				if k > 0 && gpurule.GPUResources.Match(r) {
					add(sizeKey{p.Namespace, f.Name, r}, p.Start, p.End, k)
					f.addResource(r)
				}
			}
		}
		add(sizeKey{p.Namespace, f.Name, ResourceCPU}, p.Start, p.End, cpu)
		add(sizeKey{p.Namespace, f.Name, ResourceMemory}, p.Start, p.End, mem)
	}
	if len(unbound) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d batch GPU pods never bound to a node are not in the sizing (their flavor is unknown): %s", len(unbound), strings.Join(first(unbound, 5), ", ")))
	}
	out.build(flavors, series, o)
	return out, nil
}

func first(ss []string, n int) []string {
	if len(ss) > n {
		return append(slices.Clone(ss[:n]), fmt.Sprintf("… %d more", len(ss)-n))
	}
	return ss
}

// flavorOf is the flavor of node n's GPUs: one per product label, named
// after it (or, without the label, after the GPU model).
func flavorOf(n *cluster.Node, flavors map[string]*Flavor) *Flavor {
	product := n.Labels[ProductLabel]
	id := product
	if id == "" {
		id = "model:" + n.GPUModel
	}
	if f, ok := flavors[id]; ok {
		return f
	}
	f := &Flavor{GPUModel: n.GPUModel, Resources: []string{ResourceCPU, ResourceMemory}}
	if product != "" {
		f.Name, f.NodeLabels = dnsLabel(product), map[string]string{ProductLabel: product}
	} else {
		f.Name = dnsLabel(n.GPUModel)
	}
	flavors[id] = f
	return f
}

func (f *Flavor) addResource(r string) {
	if !slices.Contains(f.Resources, r) {
		f.Resources = append(f.Resources, r)
		slices.Sort(f.Resources[2:])
	}
}

// dnsLabel lowercases s and turns every run of characters a DNS-1123
// label cannot hold into one "-", at most 63 characters.
func dnsLabel(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 63 {
		out = strings.TrimRight(out[:63], "-")
	}
	if out == "" {
		out = "gpu"
	}
	return out
}

// build sizes every team's quotas, their limits and the pools.
func (out *Sizing) build(flavors map[string]*Flavor, series map[sizeKey]*quota.Series, o SizeOptions) {
	for _, f := range flavors {
		out.Flavors = append(out.Flavors, *f)
	}
	sort.Slice(out.Flavors, func(i, j int) bool { return out.Flavors[i].Name < out.Flavors[j].Name })
	median := quota.Options{Percentile: 0.5}
	combined := map[[2]string]quota.Need{}
	for k, s := range series {
		if k.team == "" {
			combined[[2]string{k.flavor, k.resource}] = s.Need(o.Quota)
		}
	}
	teams := map[string]bool{}
	for k := range series {
		if k.team != "" {
			teams[k.team] = true
		}
	}
	pools := map[[2]string]*Pool{}
	for _, ns := range sortedSet(teams) {
		t := Team{Namespace: ns}
		for _, f := range out.Flavors {
			for _, r := range f.Resources {
				q := TeamQuota{Flavor: f.Name, Resource: r}
				if s := series[sizeKey{ns, f.Name, r}]; s != nil {
					n, half := s.Need(o.Quota), s.Need(median)
					q.Percentile, q.Peak, q.Nominal = n.Percentile, n.Peak, n.Hard
					q.LendingLimit = max(0, n.Hard-int64(math.Ceil(half.Percentile-1e-9)))
				}
				c := combined[[2]string{f.Name, r}]
				q.BorrowingLimit = max(0, c.Hard-q.Nominal)
				t.Quotas = append(t.Quotas, q)
				if gpurule.GPUResources.Match(r) {
					p := pools[[2]string{f.Name, r}]
					if p == nil {
						p = &Pool{Flavor: f.Name, Resource: r, CombinedPeak: c.Peak, CombinedNominal: c.Hard}
						pools[[2]string{f.Name, r}] = p
					}
					p.SeparatePeaks += q.Peak
					p.SeparateNominal += q.Nominal
				}
			}
		}
		out.Teams = append(out.Teams, t)
	}
	for _, f := range out.Flavors {
		for _, r := range f.Resources {
			if p := pools[[2]string{f.Name, r}]; p != nil {
				p.FreedUnits = p.SeparatePeaks - p.CombinedPeak
				out.Pools = append(out.Pools, *p)
			}
		}
	}
	for _, f := range out.Flavors {
		if len(f.NodeLabels) == 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("flavor %s: its nodes carry no %s label, so the flavor selects no nodes by label; label them (GPU feature discovery does) before relying on it", f.Name, ProductLabel))
		}
	}
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FreedGPUs sums the pools' freed units: the GPU units dedicated
// per-team capacity would hold that the shared cohort does not need.
func (s *Sizing) FreedGPUs() int64 {
	var n int64
	for _, p := range s.Pools {
		n += p.FreedUnits
	}
	return n
}
