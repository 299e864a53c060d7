package prom

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// withFacts adds constant kube-state-metrics series over promtest's window.
func withFacts(series []promtest.Series, facts ...map[string]string) []promtest.Series {
	for _, l := range facts {
		var xs []wire.Sample
		for t := promtest.Window.Start; t.Before(promtest.Window.End); t = t.Add(30 * time.Minute) {
			xs = append(xs, wire.Sample{T: t.UnixMilli(), V: 1})
		}
		series = append(series, promtest.Series{Labels: l, Samples: xs})
	}
	return series
}

var gpuTaint = map[string]string{"__name__": "kube_node_spec_taint", "node": "gpu-1", "key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}

// TestSchedulingFactsRead (issue 26.1): tolerations and node selectors
// come from kube_pod_tolerations and kube_pod_nodeselectors; required
// node affinity, which kube-state-metrics does not export, stays unknown
// and says so.
func TestSchedulingFactsRead(t *testing.T) {
	t.Parallel()
	series := withFacts(promtest.Cluster(), gpuTaint,
		map[string]string{"__name__": "kube_pod_tolerations", "namespace": "ml", "pod": "train-0", "key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
		map[string]string{"__name__": "kube_pod_tolerations", "namespace": "ml", "pod": "train-0", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
		map[string]string{"__name__": "kube_pod_nodeselectors", "namespace": "ml", "pod": "train-0", "nodeselector_nvidia_com_gpu_product": "NVIDIA-H100-80GB-HBM3", "nodeselector_pool": "a"},
		map[string]string{"__name__": "kube_pod_nodeselectors", "namespace": "ml", "pod": "idle-0"})
	for _, read := range []string{ReadRemote, ReadRange} {
		s, err := buildFrom(t, promtest.New(t, series), read)
		if err != nil {
			t.Fatal(err)
		}
		p := pod(s, "ml/train-0")
		want := []cluster.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute"}, {Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}}
		got := slices.Clone(p.Tolerations)
		slices.SortFunc(got, func(a, b cluster.Toleration) int { return strings.Compare(a.Key, b.Key) })
		if !slices.Equal(got, want) {
			t.Errorf("%s: train-0 tolerations %+v, want %+v", read, got, want)
		}
		if v := p.NodeSelector["nvidia.com/gpu.product"]; len(v) != 1 || v[0] != "NVIDIA-H100-80GB-HBM3" || p.NodeSelector["pool"][0] != "a" {
			t.Errorf("%s: train-0 node selector %v", read, p.NodeSelector)
		}
		if idle := pod(s, "ml/idle-0"); len(idle.Tolerations) != 0 || idle.NodeSelector != nil {
			t.Errorf("%s: idle-0 has no tolerations series: got %+v (tolerations are read, so none are inferred)", read, idle.Tolerations)
		}
		if !slices.Equal(s.Unknown, []string{cluster.FactNodeAffinity}) {
			t.Errorf("%s: unknown %q, want only node affinity", read, s.Unknown)
		}
		if !strings.Contains(strings.Join(s.Notes, "\n"), "required node affinity is not exported") {
			t.Errorf("%s: notes %q: want node affinity named unknown", read, s.Notes)
		}
	}
}

// TestSchedulingFactsMissing: without kube_pod_tolerations and
// kube_pod_nodeselectors both are unknown, noted, and each pod tolerates
// the NoSchedule taints of the node it ran on.
func TestSchedulingFactsMissing(t *testing.T) {
	t.Parallel()
	s, err := buildFrom(t, promtest.New(t, withFacts(promtest.Cluster(), gpuTaint)), ReadAuto)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{cluster.FactNodeAffinity, cluster.FactNodeSelectors, cluster.FactTolerations}
	if !slices.Equal(s.Unknown, want) {
		t.Errorf("unknown %q, want %q", s.Unknown, want)
	}
	train := pod(s, "ml/train-0")
	if want := []cluster.Toleration{{Key: "nvidia.com/gpu", Operator: "Equal", Value: "present", Effect: "NoSchedule"}}; !slices.Equal(train.Tolerations, want) {
		t.Errorf("train-0 tolerations %+v, want those of gpu-1's taint %+v", train.Tolerations, want)
	}
	if api := pod(s, "web/api-0"); len(api.Tolerations) != 0 {
		t.Errorf("api-0 on untainted cpu-1: tolerations %+v, want none", api.Tolerations)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, w := range []string{"no kube_pod_tolerations series", "no kube_pod_nodeselectors series", "2 pod(s) given the tolerations"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes %q: want %q", notes, w)
		}
	}
	if len(s.Partial) != 0 {
		t.Errorf("partial %q: an unexported fact is a note, not a failed read", s.Partial)
	}
}
