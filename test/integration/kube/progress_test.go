//go:build integration

package kube

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/snapshot"
	"github.com/gpuwise/gpuwise/internal/tracker"
)

// Applied actions are seen in what the cluster shows, never taken on a
// click: the plan holds a right-sizing of two Deployments and the removal
// of a spare node; the generated patch is applied to one Deployment on the
// real apiserver and the node is deleted; the tracker, reading the live
// cluster again (gpuwise collect), marks the removal applied and the
// right-sizing partly applied, 1 of 2 workloads, with the time the new
// pod started.
func TestAppliedActionsSeenOnTheRealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, _ := admin(t)
	const ns, mark = "progress", "gpuwise.io/test"
	ensureNamespace(ctx, t, cs, ns)
	h100 := func(name string) *corev1.Node {
		return kwokNode(name, awsLabels("p5.48xlarge", "on-demand", mark, "progress",
			"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.memory", "81559", "nvidia.com/gpu.count", "8"),
			[]corev1.Taint{gpuTaint}, "aws:///us-east-1a/i-"+name, "cpu", "192", "memory", "2048Gi", "nvidia.com/gpu", "8")
	}
	kept, spare := h100("progress-h100"), h100("progress-spare")
	t.Cleanup(func() {
		// the pods go before their node, so that no later test's
		// snapshot holds a GPU pod on a missing node
		bg := context.Background()
		cs.CoreV1().Namespaces().Delete(bg, ns, metav1.DeleteOptions{})
		waitFor(t, "namespace "+ns+"'s pods to be gone", time.Minute, func() (bool, string) {
			l, err := cs.CoreV1().Pods(ns).List(bg, metav1.ListOptions{})
			return err == nil && len(l.Items) == 0, "pods left"
		})
		for _, n := range []string{kept.Name, spare.Name} {
			cs.CoreV1().Nodes().Delete(bg, n, metav1.DeleteOptions{})
		}
	})
	for _, n := range []*corev1.Node{kept, spare} {
		if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	big := []string{"cpu", "8", "memory", "64Gi", "nvidia.com/gpu", "1"}
	for _, name := range []string{"chat", "embed"} {
		d := deployment(ns, name, 1, podSpec(big, big, map[string]string{mark: "progress", "kubernetes.io/hostname": kept.Name}, true))
		if _, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitRunning(ctx, t, cs, ns, map[string]string{"chat": "8", "embed": "8"})
	before := collectLive(t, "before")

	// The plan, as the ledger words it: right-size both, remove the spare.
	item := func(w string) ledger.Item {
		return ledger.Item{Target: w, Evidence: []ledger.Evidence{{Name: "cpu_request_now", Value: 8}, {Name: "cpu_request_new", Value: 1.5},
			{Name: "memory_request_now", Value: 64}, {Name: "memory_request_new", Value: 6}}}
	}
	pool := "p5.48xlarge/on-demand/H100-80GB"
	l := &ledger.Ledger{Actions: []ledger.Action{
		{ID: "A1", Key: "rightsize:resize", Lever: ledger.LeverRightsize, Kind: lever.KindResize, Title: "Right-size 2 workloads",
			Items:   []ledger.Item{item(ns + "/Deployment/chat"), item(ns + "/Deployment/embed")},
			Targets: []ledger.Target{{Kind: "workload", Name: ns + "/Deployment/chat"}, {Kind: "workload", Name: ns + "/Deployment/embed"}}},
		{ID: "A2", Key: "consolidate:remove-nodes:" + pool, Lever: ledger.LeverConsolidate, Kind: lever.KindRemoveNodes, SavingUSDMonth: 1000,
			Targets: []ledger.Target{{Kind: "pool", Name: pool}, {Kind: "node", Name: spare.Name}}},
	}}
	p := tracker.New("kube")
	observe := func(s *cluster.Prepared) {
		t.Helper()
		if err := p.Observe(tracker.Observation{Window: s.Window(), Snapshot: s.View(), Ledger: l}); err != nil {
			t.Fatal(err)
		}
	}
	observe(before)
	resize, remove := p.Actions[0], p.Actions[1]
	if resize.Status != tracker.Pending || resize.Of != 2 || remove.Status != tracker.Pending || remove.Of != 1 {
		t.Fatalf("before anything is applied: resize %s %d/%d (%s), removal %s %d/%d", resize.Status, resize.Detected, resize.Of, resize.Detection,
			remove.Status, remove.Detected, remove.Of)
	}

	// Apply what gpuwise generate writes for chat, and remove the spare node.
	files, err := generate.Patches([]generate.ResourcePatch{{Workload: generate.Workload{Kind: generate.Deployment, Namespace: ns, Name: "chat"},
		Evidence: "test", Containers: []generate.ContainerResources{{Name: "main", CPURequestMilli: 1500, CPULimitMilli: 1500,
			MemoryRequestBytes: 6 << 30, MemoryLimitBytes: 6 << 30}}}})
	if err != nil || len(files) != 1 {
		t.Fatalf("Patches: %d files, %v", len(files), err)
	}
	body, err := yaml.YAMLToJSON(files[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.AppsV1().Deployments(ns).Patch(ctx, "chat", types.StrategicMergePatchType, body, metav1.PatchOptions{}); err != nil {
		t.Fatalf("the apiserver refused the generated patch: %v\n%s", err, files[0].Data)
	}
	if err := cs.CoreV1().Nodes().Delete(ctx, spare.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRunning(ctx, t, cs, ns, map[string]string{"chat": "1500m", "embed": "8"})
	after := collectLive(t, "after")
	observe(after)

	if remove.Status != tracker.Applied || remove.Detected != 1 || remove.Detection != "1 of 1 nodes show it" {
		t.Errorf("node removal: %s %d of %d (%s), want applied", remove.Status, remove.Detected, remove.Of, remove.Detection)
	}
	if resize.Status != tracker.Partly || resize.Detected != 1 || resize.Of != 2 || resize.Detection != "1 of 2 workloads show it" {
		t.Errorf("right-sizing: %s %d of %d (%s), want partly, 1 of 2", resize.Status, resize.Detected, resize.Of, resize.Detection)
	}
	var chatStart time.Time
	for _, pod := range after.Pods() {
		if pod.Namespace == ns && strings.HasPrefix(pod.Name, "chat-") {
			chatStart = pod.Start
		}
	}
	for _, tg := range resize.Targets {
		switch tg.Name {
		case ns + "/Deployment/chat":
			if !tg.Applied || !tg.AppliedAt.Equal(chatStart) {
				t.Errorf("chat: applied %v at %v (%s), want applied when its new pod started (%v)", tg.Applied, tg.AppliedAt, tg.Seen, chatStart)
			}
		case ns + "/Deployment/embed":
			if tg.Applied {
				t.Errorf("embed was not patched but shows applied: %s", tg.Seen)
			}
		}
	}
	t.Logf("resize: %s; removal: %s", resize.Detection, remove.Detection)
}

// collectLive runs gpuwise collect against the control plane (admin
// credentials: the RBAC tests cover the shipped role) and prepares it.
func collectLive(t *testing.T, name string) *cluster.Prepared {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".gwsnap")
	if _, errOut, code := execute(t, "collect", "--kubeconfig", os.Getenv("GPUWISE_TEST_KUBECONFIG"), "-o", path); code != cli.ExitOK {
		t.Fatalf("collect exit %d: %s", code, errOut)
	}
	s, err := snapshot.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitRunning waits until each Deployment (by name) has exactly one pod,
// Running and not terminating, whose first container requests that CPU.
func waitRunning(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, ns string, cpu map[string]string) {
	t.Helper()
	waitFor(t, "the deployments' pods to run with their requests", 2*time.Minute, func() (bool, string) {
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		got := map[string][]string{}
		for _, p := range l.Items {
			app := p.Labels["app"]
			state := string(p.Status.Phase)
			if p.DeletionTimestamp != nil {
				state = "terminating"
			}
			got[app] = append(got[app], state+" "+p.Spec.Containers[0].Resources.Requests.Cpu().String())
		}
		for name, want := range cpu {
			if len(got[name]) != 1 || got[name][0] != "Running "+want {
				return false, strings.TrimSpace(strings.ReplaceAll(strings.Join(append(got[name], name), " | "), "\n", " "))
			}
		}
		return true, ""
	})
}
