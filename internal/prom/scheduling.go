package prom

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// The scheduling facts kube-state-metrics exports about pods: their
// tolerations (kube_pod_tolerations, on by default) and nodeSelector
// terms (kube_pod_nodeselectors, opt-in). Required node affinity is not
// exported at all. What cannot be read is listed in Snapshot.Unknown, so
// that no finding or placement rests on it.

const (
	tolerationsMetric   = "kube_pod_tolerations"
	nodeSelectorsMetric = "kube_pod_nodeselectors"
)

// optionalFact reports whether a fact metric's failed read leaves its fact
// unknown rather than ending the build.
func optionalFact(metric string) bool {
	return metric == tolerationsMetric || metric == nodeSelectorsMetric
}

// schedulingFact reads a pod's tolerations and node selector from one
// series of either metric.
func (p *podFacts) schedulingFact(metric string, f *fact) {
	switch metric {
	case tolerationsMetric:
		t := cluster.Toleration{Key: f.labels.Get("key"), Operator: f.labels.Get("operator"),
			Value: f.labels.Get("value"), Effect: f.labels.Get("effect")}
		for _, have := range p.pod.Tolerations {
			if have == t {
				return
			}
		}
		p.pod.Tolerations = append(p.pod.Tolerations, t)
	case nodeSelectorsMetric:
		sel := nodeSelectorOf(f.labels)
		if p.pod.NodeSelector == nil && sel != nil {
			p.pod.NodeSelector = map[string][]string{}
		}
		for k, v := range sel {
			p.pod.NodeSelector[k] = []string{v}
		}
	}
}

// nodeSelectorOf turns a kube_pod_nodeselectors series' labels back into
// the pod's nodeSelector: nodeselector_ + the key sanitized as label
// keys are (known keys come back exactly, others sanitized).
func nodeSelectorOf(series wire.Labels) map[string]string {
	var out map[string]string
	for _, p := range series {
		name, ok := strings.CutPrefix(p.Name, "nodeselector_")
		if !ok || p.Value == "" {
			continue
		}
		key, known := knownLabels["label_"+name]
		if !known {
			key = name
		}
		if out == nil {
			out = map[string]string{}
		}
		out[key] = p.Value
	}
	return out
}

// unknownFacts lists what the pod facts could not tell, and the notes
// saying so. Every pod carries the default not-ready and unreachable
// tolerations, so no kube_pod_tolerations series at all means the metric
// is not exported (denied, or dropped at scrape), not that no pod has
// any; likewise kube_pod_nodeselectors, which has a series per pod once
// enabled.
func unknownFacts(pf factSet) (unknown, notes, partial []string) {
	failed := map[string]error{}
	for _, f := range pf.failed {
		if optionalFact(f.Task.Metric) && failed[f.Task.Metric] == nil {
			failed[f.Task.Metric] = f.Err
		}
	}
	if err := failed[tolerationsMetric]; err != nil {
		unknown = append(unknown, cluster.FactTolerations)
		partial = append(partial, fmt.Sprintf("kube_pod_tolerations could not be read (%v): pod tolerations are unknown; "+
			"each pod is taken to tolerate the taints of the node it ran on, and GW004 is not decided", err))
	} else if pf.facts[tolerationsMetric].len() == 0 {
		unknown = append(unknown, cluster.FactTolerations)
		notes = append(notes, "no kube_pod_tolerations series, so pod tolerations are unknown: "+
			"each pod is taken to tolerate the taints of the node it ran on (it could not have run there otherwise), "+
			"so the plan moves pods only between nodes with taints they are seen to tolerate, and GW004 (GPU pod without the GPU toleration) is not decided")
	}
	if err := failed[nodeSelectorsMetric]; err != nil {
		unknown = append(unknown, cluster.FactNodeSelectors)
		partial = append(partial, fmt.Sprintf("kube_pod_nodeselectors could not be read (%v): pod node selectors are unknown, so the plan cannot see them and GW005 is not decided", err))
	} else if pf.facts[nodeSelectorsMetric].len() == 0 {
		unknown = append(unknown, cluster.FactNodeSelectors)
		notes = append(notes, "no kube_pod_nodeselectors series (opt-in in kube-state-metrics: --resources with pods and "+
			"--metric-opt-in-list=kube_pod_nodeselectors): pod node selectors are unknown, so the plan cannot see them and GW005 is not decided")
	}
	unknown = append(unknown, cluster.FactNodeAffinity)
	notes = append(notes, "pods' required node affinity is not exported by kube-state-metrics: the plan cannot see it "+
		"(add --context to read it from the API) and GW005 (GPU pod without a GPU model affinity) is not decided")
	sort.Strings(unknown)
	return unknown, notes, partial
}

// inferTolerations gives every pod, when tolerations are unknown, the
// tolerations of its node's NoSchedule and NoExecute taints: the pod ran
// there, so it tolerated them (or the taint came after it started, which
// the snapshot cannot tell).
func inferTolerations(s *cluster.Snapshot) int {
	taints := map[string][]cluster.Taint{}
	for _, n := range s.Nodes {
		taints[n.Name] = n.Taints
	}
	inferred := 0
	for i := range s.Pods {
		p := &s.Pods[i]
		if len(p.Tolerations) > 0 {
			continue
		}
		for _, t := range taints[p.Node] {
			if t.Effect != "NoSchedule" && t.Effect != "NoExecute" {
				continue
			}
			tol := cluster.Toleration{Key: t.Key, Operator: "Equal", Value: t.Value, Effect: t.Effect}
			if t.Value == "" {
				tol.Operator, tol.Value = "Exists", ""
			}
			p.Tolerations = append(p.Tolerations, tol)
		}
		if len(p.Tolerations) > 0 {
			inferred++
		}
	}
	return inferred
}

// schedulingNotes applies what is unknown to the snapshot; it returns the
// failed reads' sentences for Snapshot.Partial.
func schedulingNotes(s *cluster.Snapshot, pf factSet) []string {
	unknown, notes, partial := unknownFacts(pf)
	s.Unknown = unknown
	if !s.Knows(cluster.FactTolerations) {
		if n := inferTolerations(s); n > 0 {
			notes = append(notes, fmt.Sprintf("%d pod(s) given the tolerations of the taints on the node they ran on", n))
		}
	}
	s.Notes = append(s.Notes, notes...)
	return partial
}
