package generate

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// SpotPlacement points one training workload at spot capacity. Kind may be
// a core kind (a strategic-merge patch is written) or a training-operator
// kind (PyTorchJob, TFJob, …: the pod-template fragment to add to each
// replica type is written, since a strategic merge does not reach into
// their replica specs).
type SpotPlacement struct {
	Kind, Namespace, Name string
	Evidence              string
}

// spotTerms select spot nodes on every provider — Karpenter, EKS managed
// node groups, AKS spot pools and GKE Spot VMs —, one preferred term each.
var spotTerms = []corev1.NodeSelectorTerm{
	{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}}}},
	{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "eks.amazonaws.com/capacityType", Operator: corev1.NodeSelectorOpIn, Values: []string{"SPOT"}}}},
	{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.azure.com/scalesetpriority", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}}}},
	{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "cloud.google.com/gke-spot", Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}}},
}

// spotTolerations let the pods onto tainted spot pools (AKS taints spot
// nodes; GKE Spot node pools may be tainted the same way).
var spotTolerations = []corev1.Toleration{
	{Key: "kubernetes.azure.com/scalesetpriority", Operator: corev1.TolerationOpEqual, Value: "spot", Effect: corev1.TaintEffectNoSchedule},
	{Key: "cloud.google.com/gke-spot", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule},
}

// spotPodSpec is the pod spec fragment that places a pod on spot when it
// can: a *preferred* node affinity (weight 100 per provider's spot label;
// a node carries one of them), so the scheduler binds the pod to a spot
// node when one fits and to an on-demand node when none does — the
// fallback the spot NodePool's capacity types [spot, on-demand] offer; a
// required affinity would leave the pod pending instead. Only affinity and
// tolerations (a corev1.PodSpec would write containers: null, which a
// strategic merge reads as "delete the containers").
func spotPodSpec() map[string]any {
	prefs := make([]corev1.PreferredSchedulingTerm, len(spotTerms))
	for i, t := range spotTerms {
		prefs[i] = corev1.PreferredSchedulingTerm{Weight: 100, Preference: t}
	}
	return map[string]any{"affinity": &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: prefs}},
		"tolerations": spotTolerations}
}

// SpotPlacements writes one file per workload under spot/<namespace>/.
// A bare Job's template is immutable: it gets a note for its next run.
func SpotPlacements(in []SpotPlacement) ([]File, []string, error) {
	var p problems
	for _, s := range in {
		checkName(&p, "spot placement for "+s.Kind+" "+s.Namespace+"/"+s.Name, s.Name, validation.IsDNS1123Subdomain)
		checkName(&p, "spot placement for "+s.Kind+" "+s.Namespace+"/"+s.Name+": namespace", s.Namespace, validation.IsDNS1123Label)
	}
	if err := p.err(); err != nil {
		return nil, nil, err
	}
	var files []File
	var notes []string
	for _, s := range in {
		if s.Kind == string(Job) {
			notes = append(notes, fmt.Sprintf("Job %s/%s: not patched (a Job's pod template is immutable): give its next run the node affinity and tolerations of spot/README.yaml", s.Namespace, s.Name))
			continue
		}
		f, err := s.file()
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	if len(in) > 0 {
		f, err := spotReadme()
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	sortFiles(files)
	return files, notes, nil
}

func (s SpotPlacement) path() string {
	return fmt.Sprintf("spot/%s/%s-%s.yaml", s.Namespace, strings.ToLower(s.Kind), s.Name)
}

func (s SpotPlacement) file() (File, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# gpuwise spot placement for %s %s/%s (suggested; never applied)\n", s.Kind, s.Namespace, s.Name)
	b.WriteString(commentLines(s.Evidence))
	spec := map[string]any{"template": map[string]any{"spec": spotPodSpec()}}
	var obj map[string]any
	switch WorkloadKind(s.Kind) {
	case Deployment, StatefulSet, CronJob:
		if s.Kind == string(CronJob) {
			spec = map[string]any{"jobTemplate": map[string]any{"spec": spec}}
		}
		apiVersion, _ := WorkloadKind(s.Kind).apiVersion()
		obj = map[string]any{"apiVersion": apiVersion, "kind": s.Kind, "metadata": map[string]any{"name": s.Name, "namespace": s.Namespace}, "spec": spec}
		fmt.Fprintf(&b, "# apply: kubectl patch %s %s -n %s --type strategic --patch-file %s\n", strings.ToLower(s.Kind), s.Name, s.Namespace, s.path())
	default:
		obj = map[string]any{"template": map[string]any{"spec": spotPodSpec()}}
		fmt.Fprintf(&b, "# a %s's replica types each have a pod template: add this affinity and these tolerations to each\n", s.Kind)
		b.WriteString("# (and keep its restart policy OnFailure or ExitCode so that an interrupted replica restarts)\n")
	}
	body, err := yaml.Marshal(obj)
	if err != nil {
		return File{}, fmt.Errorf("spot placement for %s/%s: encoding: %w", s.Namespace, s.Name, err)
	}
	b.Write(body)
	return File{Path: s.path(), Data: []byte(b.String())}, nil
}

// spotReadme is the pod spec fragment alone, for Jobs' next runs and
// charts.
func spotReadme() (File, error) {
	body, err := yaml.Marshal(map[string]any{"spec": spotPodSpec()})
	if err != nil {
		return File{}, fmt.Errorf("spot fragment: encoding: %w", err)
	}
	head := "# gpuwise: the pod spec fragment that places a checkpointed training pod on spot capacity\n" +
		"# (Karpenter, EKS, AKS or GKE spot nodes: the node selector terms are ORed)\n"
	return File{Path: "spot/README.yaml", Data: append([]byte(head), body...)}, nil
}
