package generate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// Patches returns one strategic-merge patch file per workload, at
// "patches/<namespace>/<kind>-<name>.yaml", each headed by its evidence and
// the kubectl command that applies it. Every problem in the input is
// returned in one error and no files are produced.
func Patches(in []ResourcePatch) ([]File, error) {
	var p problems
	seen := map[string]bool{}
	for _, rp := range in {
		rp.check(&p)
		if seen[rp.path()] {
			p.addf("patch %s: workload listed twice; merge its containers into one patch", rp.Workload)
		}
		seen[rp.path()] = true
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	files := make([]File, 0, len(in))
	for _, rp := range in {
		f, err := rp.file()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	sortFiles(files)
	return files, nil
}

func (rp ResourcePatch) path() string {
	w := rp.Workload
	return fmt.Sprintf("patches/%s/%s-%s.yaml", w.Namespace, w.lowerKind(), w.Name)
}

func (rp ResourcePatch) check(p *problems) {
	rp.Workload.check(p, "patch")
	if rp.Workload.Kind == Job {
		p.addf("patch %s: a Job's spec.template is immutable once the Job exists, so the apiserver rejects this patch; use ForNextRun to say what to change for its next run", rp.Workload)
	}
	if len(rp.Containers) == 0 {
		p.addf("patch %s: no containers to change", rp.Workload)
	}
	names := map[string]bool{}
	for _, c := range rp.Containers {
		what := fmt.Sprintf("patch %s container %q", rp.Workload, c.Name)
		checkName(p, what+": name", c.Name, validation.IsDNS1123Label)
		if names[c.Name] {
			p.addf("%s: listed twice", what)
		}
		names[c.Name] = true
		c.check(p, what)
	}
}

func (c ContainerResources) check(p *problems, what string) {
	for _, q := range []struct {
		field string
		v     int64
	}{
		{"CPU request", c.CPURequestMilli}, {"CPU limit", c.CPULimitMilli},
		{"memory request", c.MemoryRequestBytes}, {"memory limit", c.MemoryLimitBytes},
	} {
		if q.v < 0 {
			p.addf("%s: %s %d is negative", what, q.field, q.v)
		}
	}
	if c.CPULimitMilli > 0 && c.CPURequestMilli > c.CPULimitMilli {
		p.addf("%s: CPU request %dm is above its limit %dm", what, c.CPURequestMilli, c.CPULimitMilli)
	}
	if c.MemoryLimitBytes > 0 && c.MemoryRequestBytes > c.MemoryLimitBytes {
		p.addf("%s: memory request %d is above its limit %d", what, c.MemoryRequestBytes, c.MemoryLimitBytes)
	}
	if c.RemoveCPULimit && c.CPULimitMilli != 0 {
		p.addf("%s: RemoveCPULimit and a CPU limit of %dm both set; choose one", what, c.CPULimitMilli)
	}
	if c.CPURequestMilli <= 0 && c.CPULimitMilli <= 0 && !c.RemoveCPULimit &&
		c.MemoryRequestBytes <= 0 && c.MemoryLimitBytes <= 0 && c.GPU == nil {
		p.addf("%s: nothing to change", what)
	}
	if c.GPU != nil {
		c.GPU.check(p, what)
	}
}

func (g GPUChange) check(p *problems, what string) {
	checkResourceName(p, what+": GPU resource", g.Resource)
	if g.Count < 1 {
		p.addf("%s: GPU count %d for %s must be at least 1", what, g.Count, g.Resource)
	}
	for i, old := range g.Remove {
		checkResourceName(p, what+": GPU resource to remove", old)
		if old == g.Resource {
			p.addf("%s: %s is both added and removed", what, old)
		}
		if slices.Contains(g.Remove[:i], old) {
			p.addf("%s: %s listed twice in Remove", what, old)
		}
	}
}

// checkResourceName accepts an extended resource name: domain-qualified,
// outside kubernetes.io, at most 63 characters.
func checkResourceName(p *problems, what, name string) {
	switch {
	case name == "":
		p.addf("%s is empty", what)
	case !strings.Contains(name, "/") || strings.HasSuffix(strings.SplitN(name, "/", 2)[0], "kubernetes.io"):
		p.addf("%s %q is not a domain-qualified extended resource such as nvidia.com/gpu", what, name)
	case len(name) > maxExtendedResourceNameLength:
		p.addf("%s %q is longer than %d characters", what, name, maxExtendedResourceNameLength)
	default:
		if msgs := validation.IsQualifiedName(name); len(msgs) > 0 {
			p.addf("%s %q is invalid: %s", what, name, strings.Join(msgs, "; "))
		}
	}
}

// file renders one patch. The pod template sits at spec.template for every
// kind except CronJob (spec.jobTemplate.spec.template).
func (rp ResourcePatch) file() (File, error) {
	w := rp.Workload
	apiVersion, _ := w.Kind.apiVersion()
	containers := make([]any, 0, len(rp.Containers))
	for _, c := range rp.Containers {
		containers = append(containers, map[string]any{"name": c.Name, "resources": c.resources()})
	}
	template := map[string]any{"spec": map[string]any{"containers": containers}}
	spec := map[string]any{"template": template}
	if w.Kind == CronJob {
		spec = map[string]any{"jobTemplate": map[string]any{"spec": spec}}
	}
	body, err := yaml.Marshal(map[string]any{
		"apiVersion": apiVersion,
		"kind":       string(w.Kind),
		"metadata":   map[string]any{"name": w.Name, "namespace": w.Namespace},
		"spec":       spec,
	})
	if err != nil {
		return File{}, fmt.Errorf("patch %s: encoding: %w", w, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwise resource patch for %s\n", w)
	b.WriteString(commentLines(rp.Evidence))
	fmt.Fprintf(&b, "# apply: kubectl patch %s %s -n %s --type strategic --patch-file %s\n",
		w.lowerKind(), w.Name, w.Namespace, rp.path())
	b.Write(body)
	return File{Path: rp.path(), Data: []byte(b.String())}, nil
}

// resources is the container's resources stanza; a nil value deletes the
// key from the live object when the patch is applied.
func (c ContainerResources) resources() map[string]any {
	requests, limits := map[string]any{}, map[string]any{}
	if c.CPURequestMilli > 0 {
		requests["cpu"] = milliCPU(c.CPURequestMilli)
	}
	if c.CPULimitMilli > 0 {
		limits["cpu"] = milliCPU(c.CPULimitMilli)
	}
	if c.RemoveCPULimit {
		limits["cpu"] = nil
	}
	if c.MemoryRequestBytes > 0 {
		requests["memory"] = bytesQuantity(c.MemoryRequestBytes)
	}
	if c.MemoryLimitBytes > 0 {
		limits["memory"] = bytesQuantity(c.MemoryLimitBytes)
	}
	if g := c.GPU; g != nil {
		for _, old := range g.Remove {
			requests[old], limits[old] = nil, nil
		}
		n := resource.NewQuantity(g.Count, resource.DecimalSI).String()
		requests[g.Resource], limits[g.Resource] = n, n
	}
	out := map[string]any{}
	if len(requests) > 0 {
		out["requests"] = requests
	}
	if len(limits) > 0 {
		out["limits"] = limits
	}
	return out
}

// milliCPU formats millicores canonically: 250 → "250m", 2000 → "2".
func milliCPU(m int64) string {
	return resource.NewMilliQuantity(m, resource.DecimalSI).String()
}

// bytesQuantity formats bytes canonically in binary units where exact:
// 1610612736 → "1536Mi".
func bytesQuantity(b int64) string {
	return resource.NewQuantity(b, resource.BinarySI).String()
}
