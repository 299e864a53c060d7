package generate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// Reclaim is one idle notebook or dev box: what to give back in its idle
// stretches. Suggestions only: scaling to zero ends a user's session.
type Reclaim struct {
	Kind, Namespace, Name string
	Evidence              string
	// IdleMinutes is the culling timeout to suggest (the policy's
	// shortest idle stretch).
	IdleMinutes int
}

// kubeflowStop is the annotation by which the Kubeflow notebook
// controller stops (scales to zero) a Notebook; its value is the time.
const kubeflowStop = "kubeflow-resource-stopped"

// Reclaims writes reclaim/<namespace>/<kind>-<name>.yaml per workload: a
// replicas: 0 merge patch for Deployments and StatefulSets, the Kubeflow
// stop annotation for Notebooks, and for bare pods (JupyterHub spawns
// them) the culler settings as comments. Nothing is applied.
func Reclaims(in []Reclaim) ([]File, error) {
	var p problems
	for _, r := range in {
		checkName(&p, "reclaim for "+r.Kind+" "+r.Namespace+"/"+r.Name, r.Name, validation.IsDNS1123Subdomain)
		if r.IdleMinutes < 1 {
			p.addf("reclaim for %s %s/%s: idle minutes %d: want at least 1", r.Kind, r.Namespace, r.Name, r.IdleMinutes)
		}
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	files := make([]File, 0, len(in))
	for _, r := range in {
		f, err := r.file()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	sortFiles(files)
	return files, nil
}

func (r Reclaim) path() string {
	return fmt.Sprintf("reclaim/%s/%s-%s.yaml", r.Namespace, strings.ToLower(r.Kind), r.Name)
}

func (r Reclaim) file() (File, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwise idle reclaim for %s %s/%s (a suggestion: scaling to zero ends the user's session; never applied)\n", r.Kind, r.Namespace, r.Name)
	b.WriteString(commentLines(r.Evidence))
	var obj any
	switch r.Kind {
	case "Deployment", "StatefulSet":
		fmt.Fprintf(&b, "# in an idle stretch: kubectl patch %s %s -n %s --type merge --patch-file %s\n", strings.ToLower(r.Kind), r.Name, r.Namespace, r.path())
		fmt.Fprintf(&b, "# back to work:     kubectl scale %s %s -n %s --replicas=1\n", strings.ToLower(r.Kind), r.Name, r.Namespace)
		obj = map[string]any{"spec": map[string]any{"replicas": 0}}
	case "Notebook":
		fmt.Fprintf(&b, "# Kubeflow: the notebook controller stops a Notebook that carries %s (value: the time);\n", kubeflowStop)
		fmt.Fprintf(&b, "# or let it cull idle notebooks itself: ENABLE_CULLING=true, CULL_IDLE_TIME=%d (minutes) on the notebook controller\n", r.IdleMinutes)
		fmt.Fprintf(&b, "# stop now: kubectl annotate notebook %s -n %s %s=$(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)\n", r.Name, r.Namespace, kubeflowStop)
		obj = map[string]any{"metadata": map[string]any{"annotations": map[string]string{kubeflowStop: "<the time, RFC 3339>"}}}
	default:
		b.WriteString("# a bare pod (JupyterHub spawns notebook servers as pods): cull idle servers with\n")
		fmt.Fprintf(&b, "# jupyterhub-idle-culler --timeout=%d (seconds), or delete the pod in an idle stretch:\n", r.IdleMinutes*60)
		fmt.Fprintf(&b, "# kubectl delete pod %s -n %s\n", r.Name, r.Namespace)
		return File{Path: r.path(), Data: []byte(b.String())}, nil
	}
	body, err := yaml.Marshal(obj)
	if err != nil {
		return File{}, fmt.Errorf("reclaim for %s/%s: encoding: %w", r.Namespace, r.Name, err)
	}
	b.Write(body)
	return File{Path: r.path(), Data: []byte(b.String())}, nil
}
