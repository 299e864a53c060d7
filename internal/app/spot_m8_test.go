package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// TestM8GenerateSpotWhenThePoolsNodesWereDeleted (issue 31, M8): a
// checkpointed PyTorchJob ran on an on-demand A100 node that was deleted
// in the window, and no A100 node is alive at its end. generate spot used
// to fail as a bug (a NodePool with a GPU limit of 0); it writes the
// placement and a spot NodePool whose limit comes from the GPUs the
// pool's nodes had in the window, and says so in a note.
func TestM8GenerateSpotWhenThePoolsNodesWereDeleted(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(48)
	gone := clustertest.Node("train-a100-1").Resources(96, 1152).Instance("p4d.24xlarge", cluster.OnDemand).GPUs(8, "A100-40GB").
		Life(w.Start, clustertest.At(40)).Obj()
	gone.Cloud, gone.Region = "aws", "us-east-1"
	pod := clustertest.Pod("train", "llm-worker-0").Owner("PyTorchJob", "llm").On("train-a100-1").Requests(4000, 64).
		Holds("train-a100-1/gpu0", 0.9, 40*3600).Obj()
	pod.CheckpointSeconds = 1800
	s := &cluster.Snapshot{Window: w, Source: "fixture", Nodes: []cluster.Node{gone}, Pods: []cluster.Pod{pod}}
	path := filepath.Join(t.TempDir(), "snap.json.gz")
	if err := snapshot.WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	req := SpotRequest{Data: Data{Source: Source{File: path}}, NodeClass: DefaultNodeClass, NodeClassGroup: DefaultNodeClassGroup}
	res, err := testApp().GenerateSpot(context.Background(), req)
	if err != nil {
		t.Fatalf("generate spot: %v (kind %v)", err, KindOf(err))
	}
	var pool string
	for _, f := range res.Files {
		if strings.HasPrefix(f.Path, "nodepool/") {
			pool = string(f.Data)
		}
	}
	if !strings.Contains(pool, `nvidia.com/gpu: "8"`) {
		t.Errorf("spot NodePool %q: want the limit of the 8 GPUs the deleted node had", pool)
	}
	if len(res.Notes) == 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "deleted in the window") {
		t.Errorf("notes %q: want the limit explained", res.Notes)
	}
}
