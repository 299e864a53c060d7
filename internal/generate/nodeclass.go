package generate

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// The node classes gpuwise writes itself. Only Azure's: an AKSNodeClass
// needs nothing of the cluster that gpuwise cannot see (the provider
// takes the subnet, identity and image from the AKS cluster itself), so
// the one the Azure pools name by default is written beside them. AWS's
// EC2NodeClass needs the node IAM role and the subnet and security-group
// selectors of the user's account, which no snapshot holds: the AWS pools
// name EC2NodeClass "gpu" and the file's apply line says it must exist.
// GCP has no Karpenter provider of its own (GKE provisions through node
// auto-provisioning and ComputeClasses), so no GCP NodePool is written.

// aksNodeClassObject is an AKSNodeClass (karpenter.azure.com/v1beta1, the
// version the Azure provider's CRD stores), as written.
type (
	aksNodeClassObject struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Metadata   clusterMeta      `json:"metadata"`
		Spec       aksNodeClassSpec `json:"spec"`
	}
	aksNodeClassSpec struct {
		GPU aksGPUMode `json:"gpu"`
	}
	aksGPUMode struct {
		Mode string `json:"mode"`
	}
)

// nodeClassFiles are the node class objects the pools name that gpuwise
// writes: the default Azure AKSNodeClass, once, when an Azure pool names
// it (a node class named with --node-class is the user's own and is not
// written).
func nodeClassFiles(pools []NodePool) ([]File, error) {
	def := DefaultNodeClasses()["azure"]
	var pools4 []string
	for _, np := range pools {
		if np.NodeClassGroup == def.Group && np.NodeClassKind == def.Kind && np.NodeClassName == def.Name {
			pools4 = append(pools4, np.Name)
		}
	}
	if len(pools4) == 0 {
		return nil, nil
	}
	slices.Sort(pools4)
	obj := aksNodeClassObject{APIVersion: def.Group + "/v1beta1", Kind: def.Kind,
		Metadata: clusterMeta{Name: def.Name, Labels: managedByLabels},
		Spec:     aksNodeClassSpec{GPU: aksGPUMode{Mode: "Driver"}}}
	body, err := yaml.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("AKSNodeClass %s: encoding: %w", def.Name, err)
	}
	path := "nodepool/aksnodeclass-" + def.Name + ".yaml"
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwise AKSNodeClass %s for the Azure GPU NodePools %s (suggested; review, then apply before them)\n", def.Name, strings.Join(pools4, ", "))
	b.WriteString("# gpu.mode Driver: AKS installs the NVIDIA driver (only GPU sizes with managed drivers are launched);\n")
	b.WriteString("# set None where the GPU Operator installs the driver itself. Image family, subnet, identity and OS\n")
	b.WriteString("# disk are the provider's defaults (the AKS cluster's own). Named \"gpu\", not \"default\": node auto-provisioning\n")
	b.WriteString("# owns the AKSNodeClass \"default\" and would fight an edit of it.\n")
	fmt.Fprintf(&b, "# apply: kubectl apply -f %s  (needs the Azure Karpenter provider or AKS node auto-provisioning)\n", path)
	b.Write(body)
	return []File{{Path: path, Data: []byte(b.String())}}, nil
}
