package generate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// NodePool is a Karpenter NodePool (karpenter.sh/v1) for one GPU pool,
// written to nodepool/<name>.yaml: the pool's instance types, a GPU taint
// so that pods without GPUs cannot keep a node alive, consolidation of
// empty nodes after ConsolidateAfter, and a GPU limit.
type NodePool struct {
	Name     string
	Evidence string
	// InstanceTypes are the node.kubernetes.io/instance-type values the
	// pool may launch; CapacityTypes the karpenter.sh/capacity-type values
	// in the order Karpenter should prefer them ("spot", "on-demand": spot
	// first, on-demand when no spot capacity is left).
	InstanceTypes []string
	CapacityTypes []string
	// GPULimit caps Resource across the pool's nodes (the user's quota,
	// or today's GPUs of the pool).
	GPULimit int
	// Resource is the pool's accelerator resource, which its limit caps
	// and its taint is keyed on: "nvidia.com/gpu" ("": that), or the
	// vendor's (amd.com/gpu, aws.amazon.com/neuron, habana.ai/gaudi).
	Resource string
	// Weight orders pools (1–100, higher first); 0 leaves it unset.
	Weight int
	// ConsolidateAfter is how long a node stays empty before it goes
	// ("10m"); WhenUnderutilized also consolidates busy nodes (GPU jobs:
	// false, only empty nodes).
	ConsolidateAfter  string
	WhenUnderutilized bool
	// NodeClass is the cloud's node class (EC2NodeClass "gpu" on AWS,
	// AKSNodeClass on Azure).
	NodeClassGroup, NodeClassKind, NodeClassName string
}

var capacityTypes = []string{"spot", "on-demand", "reserved"}

// NodePools returns one NodePool per input, and the node class gpuwise
// writes for them (nodeClassFiles); every problem in one error.
func NodePools(in []NodePool) ([]File, error) {
	var p problems
	for _, np := range in {
		np.check(&p)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	files := make([]File, 0, len(in))
	for _, np := range in {
		f, err := np.file()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	classes, err := nodeClassFiles(in)
	if err != nil {
		return nil, err
	}
	files = append(files, classes...)
	sortFiles(files)
	return files, nil
}

func (np NodePool) check(p *problems) {
	what := "NodePool " + np.Name
	checkName(p, what+": name", np.Name, validation.IsDNS1123Subdomain)
	if len(np.InstanceTypes) == 0 {
		p.addf("%s: no instance types", what)
	}
	for _, c := range np.CapacityTypes {
		if !slices.Contains(capacityTypes, c) {
			p.addf("%s: capacity type %q is not one of %s", what, c, strings.Join(capacityTypes, ", "))
		}
	}
	if len(np.CapacityTypes) == 0 {
		p.addf("%s: no capacity types", what)
	}
	if np.GPULimit < 1 {
		p.addf("%s: GPU limit %d: want at least 1", what, np.GPULimit)
	}
	if np.Weight < 0 || np.Weight > 100 {
		p.addf("%s: weight %d is outside 1 to 100", what, np.Weight)
	}
	if !validDuration(np.ConsolidateAfter) {
		p.addf("%s: consolidateAfter %q: want a duration such as 10m or Never", what, np.ConsolidateAfter)
	}
	if np.NodeClassGroup == "" || np.NodeClassKind == "" || np.NodeClassName == "" {
		p.addf("%s: no node class (group, kind and name)", what)
	}
}

// validDuration matches Karpenter's ^(([0-9]+(s|m|h))+|Never)$.
func validDuration(d string) bool {
	if d == "Never" {
		return true
	}
	if d == "" {
		return false
	}
	digits := false
	for _, r := range d {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case (r == 's' || r == 'm' || r == 'h') && digits:
			digits = false
		default:
			return false
		}
	}
	return !digits
}

// The NodePool as written; the tests decode it strictly into the upstream
// sigs.k8s.io/karpenter types.
type (
	nodePoolObject struct {
		APIVersion string        `json:"apiVersion"`
		Kind       string        `json:"kind"`
		Metadata   clusterMeta   `json:"metadata"`
		Spec       nodePoolSpecO `json:"spec"`
	}
	clusterMeta struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels,omitempty"`
	}
	nodePoolSpecO struct {
		Weight     *int              `json:"weight,omitempty"`
		Template   nodeClaimTemplate `json:"template"`
		Limits     map[string]string `json:"limits"`
		Disruption disruption        `json:"disruption"`
	}
	nodeClaimTemplate struct {
		Metadata templateMeta  `json:"metadata"`
		Spec     nodeClaimSpec `json:"spec"`
	}
	templateMeta struct {
		Labels map[string]string `json:"labels"`
	}
	nodeClaimSpec struct {
		NodeClassRef nodeClassRef  `json:"nodeClassRef"`
		Taints       []taint       `json:"taints"`
		Requirements []requirement `json:"requirements"`
	}
	nodeClassRef struct {
		Group string `json:"group"`
		Kind  string `json:"kind"`
		Name  string `json:"name"`
	}
	taint struct {
		Key    string `json:"key"`
		Value  string `json:"value"`
		Effect string `json:"effect"`
	}
	requirement struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values"`
	}
	disruption struct {
		ConsolidationPolicy string   `json:"consolidationPolicy"`
		ConsolidateAfter    string   `json:"consolidateAfter"`
		Budgets             []budget `json:"budgets"`
	}
	budget struct {
		Nodes string `json:"nodes"`
	}
)

// resource is the pool's accelerator resource, "nvidia.com/gpu" unless
// Resource names another.
func (np NodePool) resource() string {
	if np.Resource == "" {
		return "nvidia.com/gpu"
	}
	return np.Resource
}

func (np NodePool) object() nodePoolObject {
	res := np.resource()
	policy := "WhenEmpty"
	if np.WhenUnderutilized {
		policy = "WhenEmptyOrUnderutilized"
	}
	obj := nodePoolObject{APIVersion: "karpenter.sh/v1", Kind: "NodePool",
		Metadata: clusterMeta{Name: np.Name, Labels: managedByLabels},
		Spec: nodePoolSpecO{
			Template: nodeClaimTemplate{Metadata: templateMeta{Labels: map[string]string{"gpuwise.io/gpu-pool": np.Name}},
				Spec: nodeClaimSpec{
					NodeClassRef: nodeClassRef{Group: np.NodeClassGroup, Kind: np.NodeClassKind, Name: np.NodeClassName},
					Taints:       []taint{{Key: res, Value: "true", Effect: "NoSchedule"}},
					Requirements: []requirement{
						{Key: "karpenter.sh/capacity-type", Operator: "In", Values: np.CapacityTypes},
						{Key: "node.kubernetes.io/instance-type", Operator: "In", Values: np.InstanceTypes},
					},
				}},
			Limits:     map[string]string{res: strconv.Itoa(np.GPULimit)},
			Disruption: disruption{ConsolidationPolicy: policy, ConsolidateAfter: np.ConsolidateAfter, Budgets: []budget{{Nodes: "1"}}},
		}}
	if np.Weight > 0 {
		w := np.Weight
		obj.Spec.Weight = &w
	}
	return obj
}

func (np NodePool) file() (File, error) {
	body, err := yaml.Marshal(np.object())
	if err != nil {
		return File{}, fmt.Errorf("NodePool %s: encoding: %w", np.Name, err)
	}
	path := "nodepool/" + np.Name + ".yaml"
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwise Karpenter NodePool %s (suggested; review the node class and limits, then apply)\n", np.Name)
	b.WriteString(commentLines(np.Evidence))
	if res := np.resource(); res == "nvidia.com/gpu" {
		b.WriteString("# GPU pods need the toleration nvidia.com/gpu=true:NoSchedule (the GPU Operator and most charts add it);\n")
	} else {
		fmt.Fprintf(&b, "# pods need the toleration %s=true:NoSchedule (the limit caps %s, the pool's accelerator);\n", res, res)
	}
	b.WriteString("# pods without GPUs cannot land here and keep an idle GPU node alive.\n")
	fmt.Fprintf(&b, "# apply: kubectl apply -f %s  (needs Karpenter v1 and the %s %s)\n", path, np.NodeClassKind, np.NodeClassName)
	b.Write(body)
	return File{Path: path, Data: []byte(b.String())}, nil
}
