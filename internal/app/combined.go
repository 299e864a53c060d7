package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Combined sources: --prometheus with --context or --kubeconfig. Usage,
// lives and GPU holdings come from Prometheus history (the API holds no
// usage, and no pod that has gone); nodes' taints and labels and pods'
// tolerations, node selectors and affinity, owners and labels come from
// the API for every object it still has, as `serve --inventory kube`
// takes them from its informers. The engines read scheduling facts only
// of pods running at the window's end, which the API has, so facts
// Prometheus could not read (Snapshot.Unknown) are known once combined;
// pods and nodes the API no longer has keep what kube-state-metrics said.

// combinesAPI reports whether the request asks for the API beside
// Prometheus: a kubeconfig or context named explicitly.
func (s Source) combinesAPI() bool {
	return s.Prometheus != nil && (s.Kube.Context != "" || s.Kube.Kubeconfig != "")
}

// apiEndSlack is how far before now a combined read's window may end: the
// API holds the cluster as it is now.
const apiEndSlack = time.Hour

// fromCombined reads Prometheus history and the API's inventory and
// overlays the API's facts on the history.
func (a *App) fromCombined(ctx context.Context, s Source, window time.Duration) (*cluster.Snapshot, error, error) {
	if end := s.Prometheus.End; !end.IsZero() && end.Before(a.now().Add(-apiEndSlack)) {
		return nil, nil, usageErrorf("end: %s is in the past, and --context/--kubeconfig read the cluster as it is now: drop --end, or drop --context and --kubeconfig to read the past from Prometheus alone",
			end.UTC().Format(time.RFC3339))
	}
	a.progress.phase("reading the Kubernetes API")
	inv, err := a.liveSnapshot(ctx, s.Kube, max(window, time.Hour))
	if err != nil {
		return nil, nil, err
	}
	a.progress.phase("reading Prometheus")
	snap, partial, err := a.fromPrometheus(ctx, s.Prometheus, window)
	if err != nil {
		return nil, nil, err
	}
	return overlayAPI(snap, inv), partial, nil
}

// overlayAPI puts the API's scheduling and ownership facts on the
// history's nodes and pods (matched by name, and by UID where both have
// one) and notes what it matched.
func overlayAPI(hist, api *cluster.Snapshot) *cluster.Snapshot {
	out := *hist
	out.Nodes = slices.Clone(hist.Nodes)
	out.Pods = slices.Clone(hist.Pods)
	out.Source = hist.Source + " + " + api.Source
	nodes := map[string]*cluster.Node{}
	for i := range api.Nodes {
		nodes[api.Nodes[i].Name] = &api.Nodes[i]
	}
	pods := map[string]*cluster.Pod{}
	for i := range api.Pods {
		pods[api.Pods[i].Key()] = &api.Pods[i]
	}
	var nodesMatched, podsMatched, liveUnmatched int
	for i := range out.Nodes {
		n := &out.Nodes[i]
		an := nodes[n.Name]
		if an == nil {
			continue
		}
		nodesMatched++
		n.Taints = an.Taints
		labels := maps.Clone(n.Labels) // kube-state-metrics' allow-listed labels, then the API's whole set
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, an.Labels)
		n.Labels = labels
	}
	for i := range out.Pods {
		p := &out.Pods[i]
		ap := pods[p.Key()]
		if ap == nil || (p.UID != "" && ap.UID != "" && ap.UID != p.UID) {
			if p.End.IsZero() {
				liveUnmatched++
			}
			continue
		}
		podsMatched++
		p.Tolerations, p.NodeSelector, p.Owner = ap.Tolerations, ap.NodeSelector, ap.Owner
		labels := maps.Clone(p.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, ap.Labels)
		p.Labels = labels
	}
	out.Notes = append(slices.Clone(hist.Notes), fmt.Sprintf("combined sources: usage from Prometheus; taints, labels, tolerations, node selectors, affinity and owners from the API for the %d of %d nodes and %d of %d pods it still has (the others keep kube-state-metrics' facts)",
		nodesMatched, len(out.Nodes), podsMatched, len(out.Pods)))
	if liveUnmatched == 0 {
		out.Unknown = nil // every pod running at the end has the API's facts
	} else {
		out.Notes = append(out.Notes, fmt.Sprintf("%d pod(s) running at the window's end are not in the API (deleted since, or renamed): their scheduling facts stay those Prometheus has (%v unknown)",
			liveUnmatched, hist.Unknown))
	}
	return &out
}
