package generate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// VPAs returns one VerticalPodAutoscaler per input at
// "vpa/<namespace>/<name>.yaml", always in updateMode "Off": the VPA
// recommender publishes recommendations and never evicts or changes a pod.
// Every problem in the input is returned in one error.
func VPAs(in []VPA) ([]File, error) {
	var p problems
	seen := map[string]bool{}
	for _, v := range in {
		v.check(&p)
		if seen[v.path()] {
			p.addf("VPA %s/%s: two VPAs with this name; set Name on one of them", v.Workload.Namespace, v.name())
		}
		seen[v.path()] = true
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	files := make([]File, 0, len(in))
	for _, v := range in {
		f, err := v.file()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	sortFiles(files)
	return files, nil
}

func (v VPA) name() string {
	if v.Name != "" {
		return v.Name
	}
	return v.Workload.Name + "-vpa"
}

func (v VPA) path() string {
	return fmt.Sprintf("vpa/%s/%s.yaml", v.Workload.Namespace, v.name())
}

func (v VPA) check(p *problems) {
	v.Workload.check(p, "VPA for")
	what := "VPA for " + v.Workload.String()
	if v.Workload.Name != "" {
		checkName(p, what+": name", v.name(), validation.IsDNS1123Subdomain)
	}
	if v.MinCPUMilli < 0 {
		p.addf("%s: minimum CPU %dm is negative", what, v.MinCPUMilli)
	}
	if v.MinMemoryBytes < 0 {
		p.addf("%s: minimum memory %d is negative", what, v.MinMemoryBytes)
	}
	for i, c := range v.Containers {
		if c != "*" {
			checkName(p, what+": container name", c, validation.IsDNS1123Label)
		}
		if slices.Contains(v.Containers[:i], c) {
			p.addf("%s: container %q listed twice", what, c)
		}
	}
}

// The VPA object as written. Local types keep the output free of the
// zero-valued fields the upstream types would add; the tests decode it
// strictly into the upstream k8s.io/autoscaler types.
type (
	vpaObject struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   objectMeta `json:"metadata"`
		Spec       vpaSpec    `json:"spec"`
	}
	objectMeta struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels,omitempty"`
	}
	vpaSpec struct {
		TargetRef      crossVersionRef `json:"targetRef"`
		UpdatePolicy   vpaUpdatePolicy `json:"updatePolicy"`
		ResourcePolicy vpaPolicy       `json:"resourcePolicy"`
	}
	crossVersionRef struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Name       string `json:"name"`
	}
	vpaUpdatePolicy struct {
		UpdateMode string `json:"updateMode"`
	}
	vpaPolicy struct {
		ContainerPolicies []vpaContainerPolicy `json:"containerPolicies"`
	}
	vpaContainerPolicy struct {
		ContainerName       string            `json:"containerName"`
		ControlledResources []string          `json:"controlledResources"`
		MinAllowed          map[string]string `json:"minAllowed,omitempty"`
	}
)

func (v VPA) file() (File, error) {
	w := v.Workload
	apiVersion, _ := w.Kind.apiVersion()
	minAllowed := map[string]string{}
	if v.MinCPUMilli > 0 {
		minAllowed["cpu"] = milliCPU(v.MinCPUMilli)
	}
	if v.MinMemoryBytes > 0 {
		minAllowed["memory"] = bytesQuantity(v.MinMemoryBytes)
	}
	containers := v.Containers
	if len(containers) == 0 {
		containers = []string{"*"}
	}
	var policies []vpaContainerPolicy
	for _, c := range containers {
		policies = append(policies, vpaContainerPolicy{
			ContainerName:       c,
			ControlledResources: []string{"cpu", "memory"},
			MinAllowed:          minAllowed,
		})
	}
	body, err := yaml.Marshal(vpaObject{
		APIVersion: "autoscaling.k8s.io/v1",
		Kind:       "VerticalPodAutoscaler",
		Metadata:   objectMeta{Name: v.name(), Namespace: w.Namespace, Labels: managedByLabels},
		Spec: vpaSpec{
			TargetRef:      crossVersionRef{APIVersion: apiVersion, Kind: string(w.Kind), Name: w.Name},
			UpdatePolicy:   vpaUpdatePolicy{UpdateMode: "Off"},
			ResourcePolicy: vpaPolicy{ContainerPolicies: policies},
		},
	})
	if err != nil {
		return File{}, fmt.Errorf("VPA for %s: encoding: %w", w, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwise VerticalPodAutoscaler (recommendations only, updateMode Off) for %s\n", w)
	b.WriteString(commentLines(v.Evidence))
	fmt.Fprintf(&b, "# apply: kubectl apply -f %s  (needs the VPA CRDs and recommender)\n", v.path())
	fmt.Fprintf(&b, "# read:  kubectl describe vpa %s -n %s\n", v.name(), w.Namespace)
	b.Write(body)
	return File{Path: v.path(), Data: []byte(b.String())}, nil
}
