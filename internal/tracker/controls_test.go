package tracker

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/ledger/ledgertest"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// owned is the ledger fixture days later, every pod owned by a
// Deployment of its own name ("batch/Deployment/l-0"), with the controls.
func owned(t *testing.T, days int, c *cluster.Controls) *cluster.Snapshot {
	t.Helper()
	base := ledgertest.Fixture(t).View()
	s := *base
	d := time.Duration(days) * 24 * time.Hour
	s.Window = cluster.Window{Start: base.Window.Start.Add(d), End: base.Window.End.Add(d)}
	s.Pods = slices.Clone(base.Pods)
	for i := range s.Pods {
		s.Pods[i].Owner = cluster.Owner{Kind: "Deployment", Name: s.Pods[i].Name}
	}
	s.Controls = c
	return &s
}

func observeSnap(t *testing.T, p *Plan, s *cluster.Snapshot, l *ledger.Ledger) {
	t.Helper()
	if err := p.Observe(Observation{Window: s.Window, Snapshot: s, Ledger: l}); err != nil {
		t.Fatal(err)
	}
}

// wantCount checks an action's status and count.
func wantCount(t *testing.T, what string, a *Action, st Status, done, of int) {
	t.Helper()
	if a == nil {
		t.Fatalf("%s: not tracked", what)
	}
	if a.Status != st || a.Detected != done || a.Of != of {
		t.Errorf("%s: %s %d of %d (%s), want %s %d of %d", what, a.Status, a.Detected, a.Of, a.Detection, st, done, of)
	}
}

func scalers(read []string, as ...cluster.Autoscaler) *cluster.Controls {
	return &cluster.Controls{Read: read, Autoscalers: as}
}

func hpa(ns, name, target string) cluster.Autoscaler {
	return cluster.Autoscaler{Kind: cluster.KindHPA, Namespace: ns, Name: name, TargetKind: "Deployment", TargetName: target, MinReplicas: 1, MaxReplicas: 4}
}

func scaledObject(ns, name, target, mode string) cluster.Autoscaler {
	return cluster.Autoscaler{Kind: cluster.KindScaledObject, Namespace: ns, Name: name, TargetKind: "Deployment", TargetName: target, MaxReplicas: 100, Mode: mode}
}

const autoscaleKey = "autoscale:autoscale-workloads:L4"

func autoscaleLedger() *ledger.Ledger {
	return &ledger.Ledger{Actions: []ledger.Action{{ID: "A1", Key: autoscaleKey, Lever: "autoscale", Kind: lever.KindAutoscale, SavingUSDMonth: 100,
		Items: []ledger.Item{{Target: "batch/Deployment/l-0"}, {Target: "batch/Deployment/l-1"}, {Target: "batch/Deployment/l-2"}}}}}
}

// Autoscaling shows as an HPA or an active ScaledObject on each workload:
// none, two of three (a paused ScaledObject does not count), all three.
func TestAutoscalerObjectsShowAutoscaling(t *testing.T) {
	both := []string{cluster.ResourceHPA, cluster.ResourceScaledObject}
	l := autoscaleLedger()
	p := New("c")
	observeSnap(t, p, owned(t, 0, scalers(both, hpa("batch", "other", "l-3"))), l)
	a := byKey(p, autoscaleKey)
	wantCount(t, "no autoscaler object", a, Pending, 0, 3)
	if !strings.Contains(a.Targets[0].Seen, "no HorizontalPodAutoscaler or ScaledObject targets it") {
		t.Errorf("seen %q, want it to say no autoscaler targets it", a.Targets[0].Seen)
	}
	observeSnap(t, p, owned(t, 1, scalers(both, hpa("batch", "l-0", "l-0"), scaledObject("batch", "l-1", "l-1", ""), scaledObject("batch", "l-2", "l-2", "paused"))), l)
	wantCount(t, "an HPA and a ScaledObject, one paused", a, Partly, 2, 3)
	if a.Detection != "2 of 3 workloads show it" || !strings.Contains(a.Targets[1].Seen, "ScaledObject batch/l-1 targets it (0 to 100 replicas)") {
		t.Errorf("detection %q, seen %q", a.Detection, a.Targets[1].Seen)
	}
	wantAt := owned(t, 1, nil).Window.End
	if !a.AppliedAt.Equal(wantAt) {
		t.Errorf("applied at %v, want the observation that first showed it (%v)", a.AppliedAt, wantAt)
	}
	observeSnap(t, p, owned(t, 2, scalers(both, hpa("batch", "l-0", "l-0"), scaledObject("batch", "l-1", "l-1", ""), scaledObject("batch", "l-2", "l-2", ""))), l)
	wantCount(t, "every workload scaled", a, Applied, 3, 3)
	if !a.AppliedAt.Equal(wantAt) {
		t.Errorf("applied at %v after the last one, want still %v", a.AppliedAt, wantAt)
	}
}

// Without the controls (a Prometheus or older snapshot, no hourly series)
// detection is as before: the cluster cannot tell, mark it.
func TestAutoscalingWithoutControlsFallsBackToTheEffect(t *testing.T) {
	l := autoscaleLedger()
	p := New("c")
	observeSnap(t, p, owned(t, 0, nil), l)
	a := byKey(p, autoscaleKey)
	wantCount(t, "no controls, no hourly series", a, Pending, 0, 0)
	if !strings.Contains(a.Detection, "no hourly series") {
		t.Errorf("detection %q", a.Detection)
	}
	// HPAs read but not ScaledObjects (their listing forbidden): an HPA
	// counts, the others (a ScaledObject could target them) are left out
	// of the count, as any target the snapshot cannot tell.
	observeSnap(t, p, owned(t, 1, scalers([]string{cluster.ResourceHPA}, hpa("batch", "l-0", "l-0"))), l)
	wantCount(t, "HPAs only", a, Applied, 1, 1)
	if !strings.Contains(a.Targets[1].Seen, "no hourly series") {
		t.Errorf("l-1 seen %q, want it to say the snapshot cannot tell", a.Targets[1].Seen)
	}
	// KEDA not installed (the API does not serve ScaledObjects): none can
	// target the others, so they count as not applied: 1 of 3.
	noKEDA := scalers([]string{cluster.ResourceHPA}, hpa("batch", "l-0", "l-0"))
	noKEDA.NotServed = []string{cluster.ResourceScaledObject}
	observeSnap(t, p, owned(t, 2, noKEDA), l)
	wantCount(t, "HPAs, KEDA not installed", a, Partly, 1, 3)
	if !strings.Contains(a.Targets[1].Seen, "no HorizontalPodAutoscaler or ScaledObject targets it") {
		t.Errorf("l-1 seen %q, want it to say no autoscaler targets it", a.Targets[1].Seen)
	}
}

const scaleKey = "autoscale:scale-nodes:L4"

func scaleLedger() *ledger.Ledger {
	targets := []ledger.Target{{Kind: "pool", Name: "L4 GPU nodes"}}
	for _, n := range []string{"l1", "l2", "l3", "l4"} {
		targets = append(targets, ledger.Target{Kind: "node", Name: n})
	}
	return &ledger.Ledger{Actions: []ledger.Action{{ID: "A1", Key: scaleKey, Lever: "autoscale", Kind: lever.KindScaleNodes, SavingUSDMonth: 50, Targets: targets}}}
}

// A pool's node autoscaling shows as a Karpenter NodePool for its nodes
// (their instance type in its requirements, or its nodes labelled
// karpenter.sh/nodepool), before any node has scaled down.
func TestNodePoolShowsNodeAutoscaling(t *testing.T) {
	read := []string{cluster.ResourceNodePool}
	for _, tc := range []struct {
		name  string
		pools []cluster.NodePool
		label bool
		want  Status
	}{
		{"no NodePool", nil, false, Pending},
		{"a NodePool of another instance type", []cluster.NodePool{{Name: "gpu-a100", InstanceTypes: []string{ledgertest.A100x4}}}, false, Pending},
		{"a NodePool of its instance type", []cluster.NodePool{{Name: "gpu-l4", InstanceTypes: []string{ledgertest.L4x2}, ConsolidationPolicy: "WhenEmpty"}}, false, Applied},
		{"a NodePool its nodes are labelled with", []cluster.NodePool{{Name: "gpu-any"}}, true, Applied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := scaleLedger()
			p := New("c")
			observeSnap(t, p, owned(t, 0, &cluster.Controls{Read: read}), l)
			a := byKey(p, scaleKey)
			wantCount(t, "at the baseline", a, Pending, 0, 1)
			later := owned(t, 1, &cluster.Controls{Read: read, NodePools: tc.pools})
			if tc.label {
				later.Nodes = slices.Clone(later.Nodes)
				for i := range later.Nodes {
					if strings.HasPrefix(later.Nodes[i].Name, "l") {
						later.Nodes[i].Labels = map[string]string{cluster.NodePoolLabel: "gpu-any"}
					}
				}
			}
			observeSnap(t, p, later, l)
			done := 0
			if tc.want == Applied {
				done = 1
			}
			wantCount(t, tc.name, a, tc.want, done, 1)
			if tc.want == Pending && !strings.Contains(a.Detection, "no Karpenter NodePool for it") {
				t.Errorf("detection %q, want it to say no NodePool", a.Detection)
			}
			if tc.want == Applied && !strings.Contains(a.Detection, "Karpenter NodePool "+tc.pools[0].Name+" provisions it") {
				t.Errorf("detection %q, want the NodePool named", a.Detection)
			}
		})
	}
}

func gpuwiseVAP(name string) cluster.AdmissionPolicy {
	return cluster.AdmissionPolicy{Kind: cluster.KindVAP, Name: name, Labels: map[string]string{labelManagedBy: managedBy}}
}

func binding(name, policy string, actions ...string) cluster.AdmissionBinding {
	return cluster.AdmissionBinding{Name: name, Policy: policy, Actions: actions}
}

var admissionRead = []string{cluster.ResourceVAP, cluster.ResourceVAPBinding}

// The admission groundwork (F2) is applied policy by policy as a binding
// binds each gpuwise ValidatingAdmissionPolicy: none installed, three
// installed and one bound, all bound; a policy not gpuwise's is not
// counted, a Kyverno policy is in force by itself.
func TestAdmissionPolicyBindingsShowTheGroundwork(t *testing.T) {
	l := &ledger.Ledger{Foundations: []ledger.Foundation{{ID: "F2", Kind: KindAdmission, Title: "Admission policies in warn mode", Targets: 4}}}
	p := New("c")
	foreign := cluster.AdmissionPolicy{Kind: cluster.KindVAP, Name: "team-policy"}
	observeSnap(t, p, owned(t, 0, &cluster.Controls{Read: admissionRead, Policies: []cluster.AdmissionPolicy{foreign},
		Bindings: []cluster.AdmissionBinding{binding("team", "team-policy", "Deny")}}), l)
	a := byKey(p, groundworkKey(KindAdmission))
	wantCount(t, "nothing installed", a, Pending, 0, 1)
	if a.ID != ActionID(Groundwork, "groundwork:admission-warn") || a.Targets[0].Seen != "no gpuwise admission policy installed" || !slices.Contains(p.Baseline.Actions, a.ID) {
		t.Errorf("admission groundwork %s: seen %q, baseline %v", a.ID, a.Targets[0].Seen, p.Baseline.Actions)
	}
	vaps := []cluster.AdmissionPolicy{foreign, gpuwiseVAP("gpuwise-pods"), gpuwiseVAP("gpuwise-workloads"), gpuwiseVAP("gpuwise-cronjobs")}
	observeSnap(t, p, owned(t, 1, &cluster.Controls{Read: admissionRead, Policies: vaps,
		Bindings: []cluster.AdmissionBinding{binding("gpuwise-pods-warn", "gpuwise-pods", "Warn", "Audit")}}), l)
	wantCount(t, "three installed, one bound", a, Partly, 1, 3)
	if a.Detection != "1 of 3 policies show it" || a.Target != "3 gpuwise admission policy(ies)" {
		t.Errorf("detection %q, target %q", a.Detection, a.Target)
	}
	var seen []string
	for _, tg := range a.Targets {
		seen = append(seen, tg.Name+": "+tg.Seen)
	}
	want := []string{"ValidatingAdmissionPolicy/gpuwise-cronjobs: installed, no binding: inert",
		"ValidatingAdmissionPolicy/gpuwise-pods: bound by gpuwise-pods-warn (Warn, Audit)",
		"ValidatingAdmissionPolicy/gpuwise-workloads: installed, no binding: inert"}
	if !slices.Equal(seen, want) {
		t.Errorf("targets seen\n%q\nwant\n%q", seen, want)
	}
	firstBound := a.Targets[1].AppliedAt
	all := []cluster.AdmissionBinding{binding("gpuwise-pods-warn", "gpuwise-pods", "Warn", "Audit"),
		binding("gpuwise-workloads-warn", "gpuwise-workloads", "Warn", "Audit"), binding("gpuwise-cronjobs-deny", "gpuwise-cronjobs", "Deny")}
	observeSnap(t, p, owned(t, 2, &cluster.Controls{Read: admissionRead, Policies: vaps, Bindings: all}), l)
	wantCount(t, "all bound", a, Applied, 3, 3)
	if !a.Targets[1].AppliedAt.Equal(firstBound) || !a.AppliedAt.Equal(firstBound) {
		t.Errorf("gpuwise-pods applied at %v (action %v), want still %v", a.Targets[1].AppliedAt, a.AppliedAt, firstBound)
	}
	// a Kyverno policy of gpuwise's is in force without a binding
	kyv := cluster.AdmissionPolicy{Kind: cluster.KindKyvernoValidating, Name: "gpuwise-gw003", Labels: map[string]string{labelManagedBy: managedBy}, Actions: []string{"Audit"}}
	observeSnap(t, p, owned(t, 3, &cluster.Controls{Read: admissionRead, Policies: append(slices.Clone(vaps), kyv), Bindings: all[:1]}), l)
	wantCount(t, "a Kyverno policy beside one bound VAP", a, Partly, 2, 4)
	for _, x := range p.Realise(nil).Actions {
		if x.ID == a.ID && x.Status != Prerequisite {
			t.Errorf("the admission groundwork realises %s, want prerequisite", x.Status)
		}
	}
}

// Without the admission objects in the snapshot the cluster cannot tell.
func TestAdmissionWithoutControlsCannotTell(t *testing.T) {
	l := &ledger.Ledger{Foundations: []ledger.Foundation{{ID: "F2", Kind: KindAdmission, Targets: 1}}}
	p := New("c")
	observeSnap(t, p, owned(t, 0, nil), l)
	a := byKey(p, groundworkKey(KindAdmission))
	wantCount(t, "no controls", a, Pending, 0, 0)
	if !strings.Contains(a.Detection, "holds no admission policies") || !strings.Contains(a.Detection, "progress mark "+a.ID) {
		t.Errorf("detection %q", a.Detection)
	}
}

// The VPA groundwork (F3) counts the right-sized workloads a VPA can
// target (a bare pod it cannot) as a VPA targets each.
func TestVPAsShowTheGroundwork(t *testing.T) {
	l := &ledger.Ledger{Actions: []ledger.Action{{ID: "A1", Key: "rightsize:resize", Lever: "rightsize", Kind: lever.KindResize,
		Items: []ledger.Item{{Target: "batch/Deployment/l-0"}, {Target: "batch/Deployment/l-1"}, {Target: "batch/Pod/x"}}}},
		Foundations: []ledger.Foundation{{ID: "F3", Kind: KindVPAOff, Targets: 2}}}
	vpa := cluster.Autoscaler{Kind: cluster.KindVPA, Namespace: "batch", Name: "l-0", TargetKind: "Deployment", TargetName: "l-0", Mode: "Off"}
	read := []string{cluster.ResourceVPA}
	p := New("c")
	observeSnap(t, p, owned(t, 0, &cluster.Controls{Read: read}), l)
	a := byKey(p, groundworkKey(KindVPAOff))
	wantCount(t, "no VPA", a, Pending, 0, 2)
	observeSnap(t, p, owned(t, 1, &cluster.Controls{Read: read, Autoscalers: []cluster.Autoscaler{vpa, hpa("batch", "l-1", "l-1")}}), l)
	wantCount(t, "one VPA (an HPA is not one)", a, Partly, 1, 2)
	if a.Targets[0].Seen != "VPA batch/l-0 (updateMode Off)" || a.Target != "2 workload(s)" {
		t.Errorf("seen %q, target %q", a.Targets[0].Seen, a.Target)
	}
	observeSnap(t, p, owned(t, 2, &cluster.Controls{Read: []string{cluster.ResourceHPA}}), l)
	// not read: left out of the count, as any target the snapshot cannot tell
	wantCount(t, "the VPA CRD not served", a, Pending, 0, 0)
	if !strings.Contains(a.Targets[0].Seen, "holds no VPAs") {
		t.Errorf("seen %q", a.Targets[0].Seen)
	}
}

// The DCGM groundwork (F4) targets the GPU nodes whose held units had no
// activity series when proposed, and counts those now measured.
func TestDCGMShowsAsMeasuredGPUs(t *testing.T) {
	l := &ledger.Ledger{Foundations: []ledger.Foundation{{ID: "F4", Kind: KindDCGM, Targets: 2}}}
	unmeasured := func(days int, nodes ...string) *cluster.Snapshot {
		s := owned(t, days, nil)
		for i := range s.Pods {
			if slices.Contains(nodes, s.Pods[i].Node) {
				s.Pods[i].GPUs = slices.Clone(s.Pods[i].GPUs)
				s.Pods[i].GPUs[0].Activity = nil
			}
		}
		return s
	}
	p := New("c")
	observeSnap(t, p, unmeasured(0, "l1", "l2"), l)
	a := byKey(p, groundworkKey(KindDCGM))
	wantCount(t, "two nodes unmeasured", a, Pending, 0, 2)
	if a.Targets[0].Name != "l1" || a.Targets[1].Name != "l2" {
		t.Fatalf("targets %+v, want l1 and l2", a.Targets)
	}
	observeSnap(t, p, unmeasured(1, "l2"), l)
	wantCount(t, "l1 measured", a, Partly, 1, 2)
	if a.Targets[1].Seen != "0 of 1 held GPU unit(s) measured" {
		t.Errorf("l2 seen %q", a.Targets[1].Seen)
	}
	observeSnap(t, p, unmeasured(2), l)
	wantCount(t, "both measured", a, Applied, 2, 2)
}
