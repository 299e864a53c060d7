package app

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// The use cases' fixture: a day of a small cluster whose every figure is
// known by hand, priced from the embedded catalog (aws us-east-1).
//
//   - train-1, p4d.24xlarge: 8 × A100-40GB at $21.957642/h. ml/train holds
//     4 of them the whole day at 60% activity; 4 are unallocated.
//     web/api runs on it too, requesting 2 CPU and 8 GiB and no GPU.
//   - dev-1, g6.xlarge: 1 × L4 at $0.8048/h. dev/notebook holds it the
//     whole day at 2% activity (idle).
//
// So: 9 GPUs, 216 provisioned GPU-hours, 120 allocated (96 + 24), 57.6
// active (96 × 0.6 + 24 × 0.02), 24 idle (the notebook's, below 10%), and
// a node cost of 24 × (21.957642 + 0.8048) for the day.
const (
	fixtureHours     = 24
	p4dUSDPerHour    = 21.957642
	g6USDPerHour     = 0.8048
	fixtureNodeCost  = fixtureHours * (p4dUSDPerHour + g6USDPerHour)
	fixtureMonthCost = 730 * (p4dUSDPerHour + g6USDPerHour)
)

func fixtureSnapshot() *cluster.Snapshot {
	day := float64(fixtureHours * 3600)
	train := clustertest.Node("train-1").Instance("p4d.24xlarge", cluster.OnDemand).Resources(96, 1152).GPUs(8, "A100-40GB").Obj()
	dev := clustertest.Node("dev-1").Instance("g6.xlarge", cluster.OnDemand).Resources(4, 16).GPUs(1, "L4").Obj()
	w := clustertest.Window(fixtureHours)
	trainPod := clustertest.Pod("ml", "train").On("train-1").Owner("Job", "train").Requests(8000, 64)
	for i := range 4 {
		trainPod.Holds(train.GPUs[i].Units[0].ID, 0.6, day)
	}
	// The pods run past the window's end (the audit judges live pods).
	pods := []cluster.Pod{
		trainPod.Life(w.Start, time.Time{}).Obj(),
		clustertest.Pod("dev", "notebook").On("dev-1").Owner("StatefulSet", "notebook").Requests(1000, 4).
			Holds(dev.GPUs[0].Units[0].ID, 0.02, day).Life(w.Start, time.Time{}).Obj(),
		clustertest.Pod("web", "api").On("train-1").Requests(2000, 8).Life(w.Start, time.Time{}).Obj(),
	}
	return &cluster.Snapshot{Window: w, Source: "fixture", ActivityMetric: "DCGM_FI_DEV_GPU_UTIL",
		Nodes: []cluster.Node{train, dev}, Pods: pods}
}

// fixtureFile writes the fixture (changed by edit, if given) as a snapshot
// file and returns its path.
func fixtureFile(t *testing.T, edit func(*cluster.Snapshot)) string {
	t.Helper()
	s := fixtureSnapshot()
	if edit != nil {
		edit(s)
	}
	path := filepath.Join(t.TempDir(), "fixture.gwsnap")
	if err := snapshot.WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixtureMemory is the fixture as a snapshot a front end holds.
func fixtureMemory(t *testing.T) *InMemory {
	t.Helper()
	return &InMemory{Prepared: clustertest.Prepare(t, fixtureSnapshot())}
}

// writeFile writes a test file and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// near reports whether a and b agree to a relative 1e-9 (sums in another
// order differ in the last bits).
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
