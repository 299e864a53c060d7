package generate

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// recsFixture: a Deployment right-sized and moved to a MIG slice, a bare
// pod (nothing to patch), and a dev StatefulSet time-sliced 4 ways.
func recsFixture() *rightsize.Result {
	return &rightsize.Result{
		Containers: []rightsize.ContainerRec{
			{Workload: "ml/Deployment/chat", Namespace: "ml", OwnerKind: "Deployment", OwnerName: "chat", Container: "model",
				CurrentCPUMilli: 4000, CurrentCPULimit: 200, CurrentMemoryBytes: 16 * gi, CPUMilli: 250, MemoryBytes: 2 * gi,
				MonthlySavingsUSD: 1234.5, Priced: true},
			{Workload: "ml/Pod/debug", Namespace: "ml", OwnerKind: "Pod", OwnerName: "debug", Container: "sh",
				CurrentCPUMilli: 1000, CPUMilli: 100, MemoryBytes: 64 * mi},
		},
		GPU: []rightsize.GPURec{
			{Workload: "ml/Deployment/chat", Namespace: "ml", OwnerKind: "Deployment", OwnerName: "chat", Container: "model",
				Action: rightsize.UseMIG, Profile: "1g.10gb", Resource: "nvidia.com/mig-1g.10gb", CurrentResource: "nvidia.com/gpu",
				MonthlySavingsUSD: 100, Priced: true, Nodes: []rightsize.NodePods{{Node: "a100", Pods: 1}}},
			{Workload: "dev/StatefulSet/nb", Namespace: "dev", OwnerKind: "StatefulSet", OwnerName: "nb",
				Action: rightsize.UseTimeSlice, Replicas: 4, Nodes: []rightsize.NodePods{{Node: "l4-dev", Pods: 1}, {Node: "l4-mixed", Pods: 1}}},
		},
	}
}

func TestResourcePatches(t *testing.T) {
	t.Parallel()
	counted := map[string]string{"ml/Deployment/chat": "savings ledger: A3 (Move 1 workload(s) to MIG slices) saves nothing on its own (gpuwise advise)"}
	patches, notes := resourcePatches(recsFixture(), counted)
	want := []ResourcePatch{{
		Workload: Workload{Kind: Deployment, Namespace: "ml", Name: "chat"},
		// the ledger's words, not recommend's $1,334.50 estimate
		Evidence: "gpuwise recommend: requests from measured usage (docs/recommendations.md); savings ledger: A3 (Move 1 workload(s) to MIG slices) saves nothing on its own (gpuwise advise)",
		Containers: []ContainerResources{{Name: "model", CPURequestMilli: 250, CPULimitMilli: 250, MemoryRequestBytes: 2 * gi, MemoryLimitBytes: 2 * gi,
			GPU: &GPUChange{Resource: "nvidia.com/mig-1g.10gb", Count: 1, Remove: []string{"nvidia.com/gpu"}}}},
	}}
	if diff := cmp.Diff(want, patches); diff != "" {
		t.Errorf("patches (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ml/Pod/debug: a Pod cannot be patched in place; change the object that creates it"}, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

func TestVPAObjects(t *testing.T) {
	t.Parallel()
	vpas, notes := vpaObjects(recsFixture(), rightsize.DefaultPolicy(), nil)
	if len(vpas) != 1 || vpas[0].Workload.Name != "chat" || vpas[0].MinCPUMilli != rightsize.DefaultPolicy().CPU.MinMilli ||
		!cmp.Equal(vpas[0].Containers, []string{"model"}) {
		t.Errorf("vpas = %+v, want one for chat with the policy minimums", vpas)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "a VPA cannot target a Pod") {
		t.Errorf("notes = %q", notes)
	}
}

// TestVPAsSkipFinishedJobs (issue 27): a Job whose pods all ended by the
// window's end gets no VPA (it would watch no pod), and a note says why;
// a Job with a pod still running, and a CronJob whose runs all ended (its
// next run comes), each get theirs.
func TestVPAsSkipFinishedJobs(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.Add(24 * time.Hour)
	pod := func(kind, owner, name string, ended time.Time) cluster.Pod {
		return cluster.Pod{Namespace: "ml", Name: name, Start: start, End: ended, Owner: cluster.Owner{Kind: kind, Name: owner}}
	}
	snap := &cluster.Snapshot{Window: cluster.Window{Start: start, End: end}, Pods: []cluster.Pod{
		pod("Job", "sweep-1", "sweep-1-a", start.Add(2*time.Hour)), pod("Job", "sweep-1", "sweep-1-b", start.Add(3*time.Hour)),
		pod("Job", "train-2", "train-2-a", start.Add(time.Hour)), pod("Job", "train-2", "train-2-b", time.Time{}),
		pod("CronJob", "nightly", "nightly-1", start.Add(time.Hour)),
	}}
	rec := func(kind, owner string) rightsize.ContainerRec {
		return rightsize.ContainerRec{Workload: "ml/" + kind + "/" + owner, Namespace: "ml", OwnerKind: kind, OwnerName: owner, Container: "main",
			CurrentCPUMilli: 4000, CPUMilli: 500, MemoryBytes: gi}
	}
	r := &rightsize.Result{Containers: []rightsize.ContainerRec{rec("Job", "sweep-1"), rec("Job", "train-2"), rec("CronJob", "nightly")}}
	files, notes, err := RecommendedVPAs(r, rightsize.DefaultPolicy(), snap)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if diff := cmp.Diff([]string{"vpa/ml/nightly-vpa.yaml", "vpa/ml/train-2-vpa.yaml"}, got); diff != "" {
		t.Errorf("VPA files (-want +got):\n%s", diff)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "ml/Job/sweep-1: no VPA: the Job finished (its last pod ended 2026-01-01T03:00:00Z)") {
		t.Errorf("notes = %q", notes)
	}
}

// A node running only time-sliced dev pods gets ts-4; a node that also
// runs another GPU workload is left out with a note.
func TestTimeSlicingLeavesMixedNodesOut(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(ns, kind, owner, name, node string) cluster.Pod {
		return cluster.Pod{Namespace: ns, Name: name, Node: node, Start: start, Owner: cluster.Owner{Kind: kind, Name: owner},
			GPUs: []cluster.Holding{{UnitID: node + "/" + name}}}
	}
	snap := &cluster.Snapshot{Window: cluster.Window{Start: start, End: start.Add(time.Hour)}, Pods: []cluster.Pod{
		pod("dev", "StatefulSet", "nb", "nb-0", "l4-dev"),
		pod("dev", "StatefulSet", "nb", "nb-1", "l4-mixed"),
		pod("ml", "Deployment", "serve", "serve-1", "l4-mixed"),
	}}
	ts, notes := timeSlicing(recsFixture(), snap)
	want := TimeSlicing{
		Configs: []SharingConfig{{Name: "ts-4", RenameByDefault: true, FailRequestsGreaterThanOne: true, Resources: []SharedResource{{Name: "nvidia.com/gpu", Replicas: 4}}}},
		Nodes:   []NodeConfig{{Node: "l4-dev", Config: "ts-4"}},
	}
	if diff := cmp.Diff(want, ts); diff != "" {
		t.Errorf("time-slicing (-want +got):\n%s", diff)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "node l4-mixed left out of time-slicing: it also runs ml/Deployment/serve") {
		t.Errorf("notes = %q", notes)
	}
}
