package generate

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/kueue"
)

// KueueAPIVersion is the Kueue API the objects are written in
// (kueue.x-k8s.io/v1beta2: served since Kueue 0.15, stored since 0.16).
const KueueAPIVersion = "kueue.x-k8s.io/v1beta2"

// KueueLocalQueue is the LocalQueue gpuwise writes in each team's
// namespace: jobs join it with the label kueue.x-k8s.io/queue-name: gpu.
const KueueLocalQueue = "gpu"

// KueueSaving is the savings ledger's money for queueing the batch GPU
// work (its queue lever's actions), which the files quote; generate
// prices nothing itself.
type KueueSaving struct {
	// Ran says the ledger was built with the queue lever; USDMonth and
	// Actions (their IDs, "A7") are its queue-batch actions.
	Ran      bool
	USDMonth float64
	Actions  []string
}

// KueueClusterQueue is the name of a team's ClusterQueue.
func KueueClusterQueue(team string) string { return team + "-gpu" }

// Kueue writes the sizing as Kueue objects: a ResourceFlavor per GPU
// product (kueue/flavor-<name>.yaml), the cohort
// (kueue/cohort.yaml, whose header carries the pooling figures and the
// ledger's $), a ClusterQueue per team (kueue/clusterqueue-<team>.yaml)
// and its LocalQueue (kueue/localqueue-<team>.yaml). Each object is
// re-read strictly into Kueue's own types and checked as Kueue's webhook
// checks it (covered resources in every flavor's order, lending within
// the nominal quota).
func Kueue(s *kueue.Sizing, saving KueueSaving) ([]File, error) {
	var p problems
	checkName(&p, "cohort", s.Cohort, validation.IsDNS1123Label)
	for _, f := range s.Flavors {
		checkName(&p, "ResourceFlavor", f.Name, validation.IsDNS1123Label)
	}
	for _, t := range s.Teams {
		checkName(&p, "team namespace", t.Namespace, validation.IsDNS1123Label)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	if len(s.Teams) == 0 {
		return nil, nil
	}
	var files []File
	add := func(path string, head string, obj any, check func([]byte) error) error {
		body, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		if err := check(body); err != nil {
			return fmt.Errorf("%s: generated object is invalid (a gpuwise bug): %w", path, err)
		}
		files = append(files, File{Path: path, Data: append([]byte(head), body...)})
		return nil
	}
	for _, f := range s.Flavors {
		obj := kueueObject{APIVersion: KueueAPIVersion, Kind: "ResourceFlavor", Metadata: kueueMeta{Name: f.Name, Labels: managedBy()},
			Spec: map[string]any{}}
		if len(f.NodeLabels) > 0 {
			obj.Spec["nodeLabels"] = f.NodeLabels
		}
		head := fmt.Sprintf("# gpuwise ResourceFlavor for the %s nodes (%s).\n", f.GPUModel, flavorSelector(f))
		if err := add("kueue/flavor-"+f.Name+".yaml", head, obj, strictInto(&kueuev1beta2.ResourceFlavor{})); err != nil {
			return nil, err
		}
	}
	cohort := kueueObject{APIVersion: KueueAPIVersion, Kind: "Cohort", Metadata: kueueMeta{Name: s.Cohort, Labels: managedBy()}, Spec: map[string]any{}}
	if err := add("kueue/cohort.yaml", cohortHeader(s, saving), cohort, strictInto(&kueuev1beta2.Cohort{})); err != nil {
		return nil, err
	}
	covered := coveredResources(s)
	for _, t := range s.Teams {
		cq := clusterQueue(s, t, covered)
		head := fmt.Sprintf("# gpuwise ClusterQueue for team %s: per flavor and resource p%g of what its batch GPU pods requested at once over %s, +%g%% headroom;\n"+
			"# it lends the cohort its quota above its median need and may borrow up to the cohort's combined quota.\n",
			t.Namespace, s.Percentile*100, windowText(s.Window), s.Headroom*100)
		for _, q := range t.Quotas {
			if q.Peak > 0 {
				head += fmt.Sprintf("#   %s %s: p%g %s, peak %s -> nominal %s, lends %s, borrows up to %s\n", q.Flavor, q.Resource, s.Percentile*100,
					queueQuantity(q.Resource, int64(q.Percentile+0.5)), queueQuantity(q.Resource, q.Peak), queueQuantity(q.Resource, q.Nominal),
					queueQuantity(q.Resource, q.LendingLimit), queueQuantity(q.Resource, q.BorrowingLimit))
			}
		}
		if err := add("kueue/clusterqueue-"+t.Namespace+".yaml", head, cq, validClusterQueue); err != nil {
			return nil, err
		}
		lq := kueueObject{APIVersion: KueueAPIVersion, Kind: "LocalQueue", Metadata: kueueMeta{Name: KueueLocalQueue, Namespace: t.Namespace, Labels: managedBy()},
			Spec: map[string]any{"clusterQueue": KueueClusterQueue(t.Namespace)}}
		head = fmt.Sprintf("# gpuwise LocalQueue for team %s: label its batch jobs kueue.x-k8s.io/queue-name: %s.\n", t.Namespace, KueueLocalQueue)
		if err := add("kueue/localqueue-"+t.Namespace+".yaml", head, lq, strictInto(&kueuev1beta2.LocalQueue{})); err != nil {
			return nil, err
		}
	}
	sortFiles(files)
	return files, nil
}

type kueueObject struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   kueueMeta      `json:"metadata"`
	Spec       map[string]any `json:"spec"`
}

type kueueMeta struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels"`
}

func managedBy() map[string]string {
	return map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}
}

func flavorSelector(f kueue.Flavor) string {
	if len(f.NodeLabels) == 0 {
		return "no node label selects them: label them " + kueue.ProductLabel
	}
	return kueue.ProductLabel + "=" + f.NodeLabels[kueue.ProductLabel]
}

// coveredResources are every flavor's resources: cpu, memory, then the
// GPU resources sorted. Kueue wants one resource group whose flavors all
// list them in this order.
func coveredResources(s *kueue.Sizing) []string {
	var gpus []string
	for _, f := range s.Flavors {
		for _, r := range f.Resources {
			if r != kueue.ResourceCPU && r != kueue.ResourceMemory && !slices.Contains(gpus, r) {
				gpus = append(gpus, r)
			}
		}
	}
	slices.Sort(gpus)
	return append([]string{kueue.ResourceCPU, kueue.ResourceMemory}, gpus...)
}

func clusterQueue(s *kueue.Sizing, t kueue.Team, covered []string) kueueObject {
	byKey := map[[2]string]kueue.TeamQuota{}
	for _, q := range t.Quotas {
		byKey[[2]string{q.Flavor, q.Resource}] = q
	}
	var flavors []any
	for _, f := range s.Flavors {
		var res []any
		for _, r := range covered {
			q := byKey[[2]string{f.Name, r}]
			res = append(res, map[string]any{"name": r, "nominalQuota": queueQuantity(r, q.Nominal),
				"borrowingLimit": queueQuantity(r, q.BorrowingLimit), "lendingLimit": queueQuantity(r, q.LendingLimit)})
		}
		flavors = append(flavors, map[string]any{"name": f.Name, "resources": res})
	}
	return kueueObject{APIVersion: KueueAPIVersion, Kind: "ClusterQueue", Metadata: kueueMeta{Name: KueueClusterQueue(t.Namespace), Labels: managedBy()},
		Spec: map[string]any{
			"cohortName":        s.Cohort,
			"namespaceSelector": map[string]any{"matchLabels": map[string]string{"kubernetes.io/metadata.name": t.Namespace}},
			"queueingStrategy":  "BestEffortFIFO",
			// What a team lent comes back when it needs it; inside the
			// queue, higher priority first.
			"preemption":     map[string]any{"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
			"resourceGroups": []any{map[string]any{"coveredResources": covered, "flavors": flavors}},
		}}
}

// queueQuantity writes a sized amount in its resource's units: CPU
// millicores, memory bytes rounded up to MiB, GPU units.
func queueQuantity(r string, v int64) string {
	switch r {
	case kueue.ResourceCPU:
		if v%1000 == 0 {
			return resource.NewQuantity(v/1000, resource.DecimalSI).String()
		}
		return resource.NewMilliQuantity(v, resource.DecimalSI).String()
	case kueue.ResourceMemory:
		const mi = 1 << 20
		return resource.NewQuantity((v+mi-1)/mi*mi, resource.BinarySI).String()
	}
	return resource.NewQuantity(v, resource.DecimalSI).String()
}

// cohortHeader says what pooling the teams in one cohort frees, and the
// money the ledger counts for queueing the batch work.
func cohortHeader(s *kueue.Sizing, saving KueueSaving) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# gpuwise cohort %s: the teams' ClusterQueues share it, so idle quota is lent, not held.\n", s.Cohort)
	for _, p := range s.Pools {
		fmt.Fprintf(&b, "#   %s %s: the teams' separate peaks need %d, their combined peak %d: pooling frees %d (quotas %d apart, %d pooled)\n",
			p.Flavor, p.Resource, p.SeparatePeaks, p.CombinedPeak, p.FreedUnits, p.SeparateNominal, p.CombinedNominal)
	}
	switch {
	case !saving.Ran:
		b.WriteString("# $: the savings ledger was not built with its queue lever; gpuwise advise prices queueing the batch work.\n")
	case len(saving.Actions) == 0:
		b.WriteString("# $: the savings ledger's queue lever finds no batch worker holding GPUs between runs: $0/month counted\n" +
			"#    (the GPUs pooling frees are capacity dedicated per-team quotas would need, not nodes the cluster runs today).\n")
	default:
		fmt.Fprintf(&b, "# $: queueing the batch GPU work saves $%.2f/month in the savings ledger (%s; gpuwise advise).\n",
			saving.USDMonth, strings.Join(saving.Actions, ", "))
	}
	return b.String()
}

// strictInto decodes a body strictly into Kueue's type.
func strictInto(into any) func([]byte) error {
	return func(body []byte) error { return yaml.UnmarshalStrict(body, into) }
}

// validClusterQueue decodes the ClusterQueue strictly and checks what
// Kueue's webhook checks of its resource groups: every flavor lists the
// covered resources in order, and lending stays within the nominal quota.
func validClusterQueue(body []byte) error {
	var cq kueuev1beta2.ClusterQueue
	if err := yaml.UnmarshalStrict(body, &cq); err != nil {
		return err
	}
	for _, g := range cq.Spec.ResourceGroups {
		for _, f := range g.Flavors {
			if len(f.Resources) != len(g.CoveredResources) {
				return fmt.Errorf("flavor %s: %d resources for %d covered", f.Name, len(f.Resources), len(g.CoveredResources))
			}
			for i, r := range f.Resources {
				if r.Name != g.CoveredResources[i] {
					return fmt.Errorf("flavor %s: resource %d is %s, want %s", f.Name, i, r.Name, g.CoveredResources[i])
				}
				if r.LendingLimit != nil && r.LendingLimit.Cmp(r.NominalQuota) > 0 {
					return fmt.Errorf("flavor %s %s: lending limit %s above the nominal quota %s", f.Name, r.Name, r.LendingLimit, &r.NominalQuota)
				}
			}
		}
	}
	return nil
}
