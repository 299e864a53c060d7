package generate

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// scalerFixture: a vLLM service on queue depth, a Triton one on its queue
// time, and an unserved StatefulSet on DCGM activity.
func scalerFixture() []Scaler {
	p := capacity.DefaultAutoscalePolicy()
	vllm := capacity.Signal{Kind: capacity.SignalQueue, Metric: capacity.MetricVLLMQueue, Server: cluster.ServerVLLM, Threshold: 2, PerReplica: true}
	triton := capacity.Signal{Kind: capacity.SignalQueue, Metric: capacity.MetricTritonQueue, Server: cluster.ServerTriton, Threshold: 1, PerReplica: true}
	dcgm := capacity.Signal{Kind: capacity.SignalActivity, Metric: capacity.MetricDCGMActivity, Threshold: 0.65}
	scs := []capacity.Scaling{
		{Workload: "inference/Deployment/chat-llm", Namespace: "inference", Kind: "Deployment", Name: "chat-llm", MinReplicas: 1, MaxReplicas: 5, Replicas: 5,
			Trough: 1, Peak: 5, Signal: vllm, Sizing: "requests", FreedGPUHours: 300, HeldGPUHours: 840},
		{Workload: "inference/Deployment/asr-whisper", Namespace: "inference", Kind: "Deployment", Name: "asr-whisper", MinReplicas: 1, MaxReplicas: 4, Replicas: 4,
			Trough: 1, Peak: 4, Signal: triton, Sizing: "requests", FreedGPUHours: 200, HeldGPUHours: 672},
		{Workload: "research/StatefulSet/embed.v2", Namespace: "research", Kind: "StatefulSet", Name: "embed.v2", MinReplicas: 1, MaxReplicas: 2, Replicas: 2,
			Trough: 1, Peak: 2, Signal: dcgm, Sizing: "gpu-activity", FreedGPUHours: 50, HeldGPUHours: 336},
		{Workload: "inference/Deployment/busy", Namespace: "inference", Kind: "Deployment", Name: "busy", Replicas: 2, Signal: dcgm},
	}
	out, notes := Autoscaled(scs, p)
	if len(out) != 3 || len(notes) != 1 || !strings.Contains(notes[0], "inference/Deployment/busy: not scaled") {
		panic("scalerFixture: the busy service must be left out with a note")
	}
	return out
}

func nodePoolFixture() []NodePool {
	w := cluster.Window{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	w.End = w.Start.Add(168 * time.Hour)
	node := func(name, it, capType string, gpus int, model string) cluster.Node {
		n := cluster.Node{Name: name, InstanceType: it, Capacity: capType, Cloud: "aws"}
		for range gpus {
			n.GPUs = append(n.GPUs, cluster.GPU{Model: model})
		}
		return n
	}
	gone := node("train-3", "p5.48xlarge", cluster.Spot, 8, "H100-80GB")
	gone.Deleted = w.Start.Add(time.Hour)
	azure := node("nd-1", "Standard_ND96isr_H100_v5", cluster.OnDemand, 8, "H100-80GB")
	azure.Cloud = "azure"
	onprem := node("dgx-1", "dgx-a100-640gb", cluster.OnDemand, 8, "A100-80GB")
	onprem.Cloud = ""
	s := &cluster.Snapshot{Window: w, Nodes: []cluster.Node{
		node("train-1", "p5.48xlarge", cluster.OnDemand, 8, "H100-80GB"), node("train-2", "p5.48xlarge", cluster.Spot, 8, "H100-80GB"), gone,
		node("inf-1", "g6.xlarge", cluster.OnDemand, 1, "L4"), {Name: "system", InstanceType: "m6i.xlarge"},
		azure, onprem,
	}}
	pools, notes := GPUNodePools(s, NodePoolOptions{GPUQuota: 12, ConsolidateAfter: "10m"})
	if len(pools) != 3 || len(notes) != 2 || !strings.Contains(notes[0], "1 GPU node(s) in no NodePool: dgx-1") ||
		!strings.Contains(notes[1], "quota 12 is below the 16 H100-80GB GPUs") {
		panic(fmt.Sprintf("nodePoolFixture: want three pools, the on-prem and the quota notes: %d pools, notes %q", len(pools), notes))
	}
	return pools
}

// TestNodePoolsPerProvider: the H100s on AWS and on Azure are two pools,
// each with its own provider's node class and only its own instance
// types; the on-premises DGX is in none; each pool's GPU limit is its own
// nodes' GPUs (the quota capping the AWS one).
func TestNodePoolsPerProvider(t *testing.T) {
	t.Parallel()
	want := map[string]struct {
		kind, group, types string
		limit              int
	}{
		"gpu-h100-80gb-aws":   {"EC2NodeClass", "karpenter.k8s.aws", "p5.48xlarge", 12},
		"gpu-h100-80gb-azure": {"AKSNodeClass", "karpenter.azure.com", "Standard_ND96isr_H100_v5", 8},
		"gpu-l4-aws":          {"EC2NodeClass", "karpenter.k8s.aws", "g6.xlarge", 1},
	}
	got := map[string]bool{}
	for _, np := range nodePoolFixture() {
		w, ok := want[np.Name]
		if !ok || np.NodeClassKind != w.kind || np.NodeClassGroup != w.group || strings.Join(np.InstanceTypes, ",") != w.types || np.GPULimit != w.limit {
			t.Errorf("NodePool %s: class %s/%s, types %v, limit %d; want %+v", np.Name, np.NodeClassGroup, np.NodeClassKind, np.InstanceTypes, np.GPULimit, w)
		}
		got[np.Name] = true
	}
	if len(got) != len(want) {
		t.Errorf("pools %v, want %d", got, len(want))
	}
}

func TestScalersGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		o    ScalerOptions
	}{
		{"keda", ScalerOptions{PrometheusAddress: "http://prometheus.monitoring:9090"}},
		{"hpa", ScalerOptions{HPA: true}},
	} {
		files, err := Scalers(scalerFixture(), tc.o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteStream(&b, files); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, "testdata/autoscaling-"+tc.name+".yaml", b.Bytes())
	}
}

func TestNodePoolsGolden(t *testing.T) {
	t.Parallel()
	files, err := NodePools(nodePoolFixture())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteStream(&b, files); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/nodepool.yaml", b.Bytes())
}

// TestCapacityObjectsDecodeStrictly decodes every generated ScaledObject,
// HPA and NodePool into the upstream Go types (KEDA v2.21, k8s.io/api
// autoscaling/v2, Karpenter v1.14), unknown fields refused, and checks the
// fields that carry the decision.
func TestCapacityObjectsDecodeStrictly(t *testing.T) {
	t.Parallel()
	keda, err := Scalers(scalerFixture(), ScalerOptions{PrometheusAddress: "http://prometheus.monitoring:9090"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range keda {
		var so kedav1alpha1.ScaledObject
		if err := yaml.UnmarshalStrict(f.Data, &so); err != nil {
			t.Fatalf("%s does not decode strictly into keda ScaledObject: %v", f.Path, err)
		}
		tr := so.Spec.Triggers[0]
		if so.Spec.MinReplicaCount == nil || *so.Spec.MinReplicaCount != 1 || tr.Type != "prometheus" || tr.Metadata["query"] == "" || so.Spec.Fallback == nil {
			t.Errorf("%s: min %v, trigger %+v, fallback %v", f.Path, so.Spec.MinReplicaCount, tr, so.Spec.Fallback)
		}
	}
	hpas, err := Scalers(scalerFixture(), ScalerOptions{HPA: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range hpas {
		var h autoscalingv2.HorizontalPodAutoscaler
		if err := yaml.UnmarshalStrict(f.Data, &h); err != nil {
			t.Fatalf("%s does not decode strictly into autoscaling/v2 HPA: %v", f.Path, err)
		}
		if h.Spec.Metrics[0].Type != autoscalingv2.ExternalMetricSourceType || h.Spec.Behavior.ScaleDown.StabilizationWindowSeconds == nil ||
			*h.Spec.Behavior.ScaleDown.StabilizationWindowSeconds != 900 {
			t.Errorf("%s: metric %v, behavior %+v", f.Path, h.Spec.Metrics[0].Type, h.Spec.Behavior)
		}
	}
	pools, err := NodePools(nodePoolFixture())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range pools {
		if strings.Contains(f.Path, "aksnodeclass") {
			continue // TestAKSNodeClassAgainstItsCRD
		}
		var np karpv1.NodePool
		if err := yaml.UnmarshalStrict(f.Data, &np); err != nil {
			t.Fatalf("%s does not decode strictly into karpenter NodePool: %v", f.Path, err)
		}
		if np.Spec.Disruption.ConsolidationPolicy != karpv1.ConsolidationPolicyWhenEmpty || len(np.Spec.Template.Spec.Taints) != 1 || np.Spec.Limits == nil {
			t.Errorf("%s: disruption %+v taints %v limits %v", f.Path, np.Spec.Disruption, np.Spec.Template.Spec.Taints, np.Spec.Limits)
		}
	}
}

func TestCapacityBadInput(t *testing.T) {
	t.Parallel()
	s := scalerFixture()[0]
	s.MinReplicas, s.MaxReplicas, s.Threshold = 3, 2, 0
	s.Workload.Kind = Job
	_, err := Scalers([]Scaler{s}, ScalerOptions{PrometheusAddress: "prometheus:9090"})
	for _, want := range []string{`Prometheus address "prometheus:9090"`, "replicas 3 to 2", "threshold 0", "only a Deployment or a StatefulSet"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Scalers: %v, want %q", err, want)
		}
	}
	np := nodePoolFixture()[0]
	np.CapacityTypes, np.GPULimit, np.ConsolidateAfter, np.Weight = []string{"preemptible"}, 0, "10 minutes", 101
	_, err = NodePools([]NodePool{np})
	for _, want := range []string{`capacity type "preemptible"`, "GPU limit 0", `consolidateAfter "10 minutes"`, "weight 101"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NodePools: %v, want %q", err, want)
		}
	}
}

// TestAKSNodeClassAgainstItsCRD: the Azure pools name the AKSNodeClass
// gpuwise writes, once, and every field of it is one the Azure provider's
// CRD (vendored in hack/crds/azure: its module is not on the proxy, so no
// Go types) declares for the version the object names, its values among
// the enums. The control-plane tier sends it to the real apiserver.
func TestAKSNodeClassAgainstItsCRD(t *testing.T) {
	t.Parallel()
	files, err := NodePools(nodePoolFixture())
	if err != nil {
		t.Fatal(err)
	}
	var class []byte
	for _, f := range files {
		if strings.HasPrefix(f.Path, "nodepool/aksnodeclass-") {
			if class != nil {
				t.Fatalf("two AKSNodeClass files")
			}
			class = f.Data
		}
	}
	if class == nil {
		t.Fatalf("no AKSNodeClass written for the Azure pool: %v", paths(files))
	}
	var obj map[string]any
	if err := yaml.Unmarshal(class, &obj); err != nil {
		t.Fatal(err)
	}
	meta, _ := obj["metadata"].(map[string]any)
	if obj["kind"] != "AKSNodeClass" || meta["name"] != DefaultNodeClasses()["azure"].Name {
		t.Fatalf("AKSNodeClass: kind %v, name %v; the Azure pools name %+v", obj["kind"], meta["name"], DefaultNodeClasses()["azure"])
	}
	raw, err := os.ReadFile("../../hack/crds/azure/karpenter.azure.com_aksnodeclasses.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Group    string
			Versions []struct {
				Name   string
				Served bool
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	for _, v := range crd.Spec.Versions {
		if crd.Spec.Group+"/"+v.Name == obj["apiVersion"] && v.Served {
			schema = v.Schema.OpenAPIV3Schema
		}
	}
	if schema == nil {
		t.Fatalf("the CRD serves no %v", obj["apiVersion"])
	}
	var check func(path string, v any, s map[string]any)
	check = func(path string, v any, s map[string]any) {
		switch v := v.(type) {
		case map[string]any:
			props, _ := s["properties"].(map[string]any)
			if props == nil {
				return // metadata: the apiserver's own
			}
			for k, x := range v {
				sub, ok := props[k].(map[string]any)
				if !ok {
					t.Errorf("%s.%s: not a field of the CRD's schema", path, k)
					continue
				}
				check(path+"."+k, x, sub)
			}
		default:
			if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, any(v)) {
				t.Errorf("%s: %v is not one of %v", path, v, enum)
			}
		}
	}
	check("AKSNodeClass", obj, schema)

	// A node class the user names is theirs: not written.
	own := nodePoolFixture()
	for i := range own {
		if own[i].NodeClassGroup == "karpenter.azure.com" {
			own[i].NodeClassName = "mine"
		}
	}
	files, err = NodePools(own)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.Contains(f.Path, "aksnodeclass") {
			t.Errorf("%s written for the user's own AKSNodeClass mine", f.Path)
		}
	}
}

func paths(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// An accelerator pool's limit and taint are its vendor's resource, not
// nvidia.com/gpu: a Trainium pool tainted nvidia.com/gpu would refuse the
// Neuron pods it exists for, and its nvidia.com/gpu limit would cap nothing.
func TestAcceleratorNodePoolsUseTheirVendorsResource(t *testing.T) {
	files, err := NodePools([]NodePool{
		{Name: "gpu-trainium-aws", InstanceTypes: []string{"trn1.32xlarge"}, CapacityTypes: []string{"on-demand"}, GPULimit: 16,
			Resource: "aws.amazon.com/neuron", ConsolidateAfter: "10m", NodeClassGroup: "karpenter.k8s.aws", NodeClassKind: "EC2NodeClass", NodeClassName: "gpu"},
		{Name: "gpu-h100-aws", InstanceTypes: []string{"p5.48xlarge"}, CapacityTypes: []string{"on-demand"}, GPULimit: 8,
			ConsolidateAfter: "10m", NodeClassGroup: "karpenter.k8s.aws", NodeClassKind: "EC2NodeClass", NodeClassName: "gpu"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		s := string(f.Data)
		switch f.Path {
		case "nodepool/gpu-trainium-aws.yaml":
			if !strings.Contains(s, `aws.amazon.com/neuron: "16"`) || !strings.Contains(s, "key: aws.amazon.com/neuron") || strings.Contains(s, "nvidia.com/gpu") {
				t.Errorf("Trainium pool:\n%s", s)
			}
		case "nodepool/gpu-h100-aws.yaml":
			if !strings.Contains(s, `nvidia.com/gpu: "8"`) || !strings.Contains(s, "key: nvidia.com/gpu") {
				t.Errorf("H100 pool:\n%s", s)
			}
		}
	}
}
