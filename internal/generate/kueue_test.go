package generate

import (
	"strings"
	"testing"
	"time"

	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/kueue"
)

// sampleKueue: two teams on an A100 flavor (one also on an L4 flavor with
// a MIG resource), their pooling, and the ledger's queue action.
func sampleKueue() (*kueue.Sizing, KueueSaving) {
	a100 := kueue.Flavor{Name: "nvidia-a100-sxm4-80gb", GPUModel: "A100-80GB", NodeLabels: map[string]string{kueue.ProductLabel: "NVIDIA-A100-SXM4-80GB"},
		Resources: []string{"cpu", "memory", "nvidia.com/gpu", "nvidia.com/mig-1g.10gb"}}
	l4 := kueue.Flavor{Name: "l4", GPUModel: "L4", Resources: []string{"cpu", "memory", "nvidia.com/gpu"}}
	q := func(f, r string, p float64, peak, nominal, lend, borrow int64) kueue.TeamQuota {
		return kueue.TeamQuota{Flavor: f, Resource: r, Percentile: p, Peak: peak, Nominal: nominal, LendingLimit: lend, BorrowingLimit: borrow}
	}
	return &kueue.Sizing{Window: 7 * 24 * time.Hour, Percentile: 0.95, Headroom: 0.2, Cohort: "gpuwise-batch",
			Flavors: []kueue.Flavor{l4, a100},
			Teams: []kueue.Team{
				{Namespace: "research", Quotas: []kueue.TeamQuota{
					q("l4", "cpu", 0, 0, 0, 0, 9600), q("l4", "memory", 0, 0, 0, 0, 64<<30), q("l4", "nvidia.com/gpu", 0, 0, 0, 0, 2),
					q(a100.Name, "cpu", 16000, 24000, 19200, 12200, 4800), q(a100.Name, "memory", 128<<30, 192<<30, 154<<30, 100<<30, 30<<30),
					q(a100.Name, "nvidia.com/gpu", 4, 6, 5, 3, 2), q(a100.Name, "nvidia.com/mig-1g.10gb", 2, 3, 3, 2, 0)}},
				{Namespace: "training", Quotas: []kueue.TeamQuota{
					q("l4", "cpu", 8000, 8000, 9600, 1600, 0), q("l4", "memory", 48<<30, 48<<30, 58<<30, 10<<30, 0), q("l4", "nvidia.com/gpu", 1, 1, 2, 1, 0),
					q(a100.Name, "cpu", 4000, 8000, 4800, 800, 19200), q(a100.Name, "memory", 32<<30, 64<<30, 39<<30, 7<<30, 145<<30),
					q(a100.Name, "nvidia.com/gpu", 1, 2, 2, 1, 5), q(a100.Name, "nvidia.com/mig-1g.10gb", 0, 0, 0, 0, 3)}},
			},
			Pools: []kueue.Pool{{Flavor: "l4", Resource: "nvidia.com/gpu", SeparatePeaks: 1, CombinedPeak: 1, SeparateNominal: 2, CombinedNominal: 2},
				{Flavor: a100.Name, Resource: "nvidia.com/gpu", SeparatePeaks: 8, CombinedPeak: 6, FreedUnits: 2, SeparateNominal: 7, CombinedNominal: 7},
				{Flavor: a100.Name, Resource: "nvidia.com/mig-1g.10gb", SeparatePeaks: 3, CombinedPeak: 3, SeparateNominal: 3, CombinedNominal: 3}}},
		KueueSaving{Ran: true, USDMonth: 2920, Actions: []string{"A6"}}
}

// Every ClusterQueue covers cpu, memory and every GPU resource in every
// flavor, in order, and reads back into Kueue's type with the sized
// quotas; the cohort's header quotes the ledger's money, never its own.
func TestKueueObjects(t *testing.T) {
	t.Parallel()
	s, saving := sampleKueue()
	files, err := Kueue(s, saving)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]byte{}
	for _, f := range files {
		byPath[f.Path] = f.Data
	}
	var cq kueuev1beta2.ClusterQueue
	if err := yaml.UnmarshalStrict(byPath["kueue/clusterqueue-research.yaml"], &cq); err != nil {
		t.Fatal(err)
	}
	g := cq.Spec.ResourceGroups[0]
	if strings.Join(resourceNames(g.CoveredResources), ",") != "cpu,memory,nvidia.com/gpu,nvidia.com/mig-1g.10gb" || len(g.Flavors) != 2 {
		t.Fatalf("covered %v over %d flavors", g.CoveredResources, len(g.Flavors))
	}
	gpu := g.Flavors[1].Resources[2]
	if g.Flavors[1].Name != "nvidia-a100-sxm4-80gb" || gpu.NominalQuota.Value() != 5 || gpu.LendingLimit.Value() != 3 || gpu.BorrowingLimit.Value() != 2 {
		t.Errorf("research's A100 GPUs: %+v", gpu)
	}
	if cq.Spec.CohortName != "gpuwise-batch" || cq.Name != "research-gpu" {
		t.Errorf("ClusterQueue %s in cohort %s", cq.Name, cq.Spec.CohortName)
	}
	head := string(byPath["kueue/cohort.yaml"])
	for _, want := range []string{"pooling frees 2", "$2920.00/month in the savings ledger (A6; gpuwise advise)"} {
		if !strings.Contains(head, want) {
			t.Errorf("cohort.yaml lacks %q:\n%s", want, head)
		}
	}
	if len(files) != 2+1+2*2 {
		t.Errorf("%d files, want 2 flavors, the cohort and a ClusterQueue and LocalQueue per team", len(files))
	}
}

func resourceNames[T ~string](rs []T) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

// A lending limit above the nominal quota is refused as Kueue's webhook
// refuses it.
func TestValidClusterQueueRefusesLendingAboveNominal(t *testing.T) {
	t.Parallel()
	body := `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: x}
spec:
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a
      resources: [{name: nvidia.com/gpu, nominalQuota: "1", lendingLimit: "2"}]
`
	if err := validClusterQueue([]byte(body)); err == nil || !strings.Contains(err.Error(), "above the nominal quota") {
		t.Errorf("got %v", err)
	}
}
