package audit

import (
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// acceleratorPod holds unit through the vendor's resource, not
// nvidia.com/gpu.
func acceleratorPod(ns, name, node, unit, resource string) cluster.Pod {
	p := gpuPod(ns, name, node, unit)
	p.Containers[0].GPURequests = map[string]int64{resource: 1}
	return p
}

// TestAcceleratorPodsAreNotForeign: on an untainted Trainium node, the pod
// holding a Neuron device is no "non-GPU pod" (GW002), the one asking for
// nothing is, and GW001's fix taints the node with the Neuron resource.
func TestAcceleratorPodsAreNotForeign(t *testing.T) {
	t.Parallel()
	trn := clustertest.Node("trn-1").Resources(128, 512).Instance("trn1.32xlarge", cluster.OnDemand).GPUs(16, "Trainium").Obj()
	trn.Cloud, trn.Region = "aws", "us-east-1"
	web := clustertest.Pod("web", "api").On("trn-1").Requests(2000, 4).Obj()
	s := &cluster.Snapshot{Nodes: []cluster.Node{trn}, Pods: []cluster.Pod{
		acceleratorPod("ml", "train-0", "trn-1", "trn-1/gpu0", cluster.ResNeuron), web}}
	s.Window = clustertest.Window(24)
	r := Run(clustertest.Prepare(t, s), nil, DefaultOptions())
	var gw002 []string
	for _, f := range r.Findings {
		switch f.Rule {
		case RuleNonGPUPod:
			gw002 = append(gw002, f.Object+" "+strings.Join(f.Evidence, "; "))
		case RuleNodeUntainted:
			if !strings.Contains(f.Remediation, "kubectl taint nodes trn-1 aws.amazon.com/neuron=true:NoSchedule") {
				t.Errorf("GW001 fix %q: want the Neuron taint", f.Remediation)
			}
			if !strings.Contains(strings.Join(f.Evidence, "; "), "1 non-GPU pods") {
				t.Errorf("GW001 evidence %q: want 1 non-GPU pod (the Neuron pod is not one)", f.Evidence)
			}
		}
	}
	if len(gw002) != 1 || !strings.Contains(gw002[0], "web") || strings.Contains(gw002[0], "train-0") {
		t.Errorf("GW002 findings %q: want only the web pod", gw002)
	}
}
