package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// fingerprint is the content of a prepared snapshot: its file encoding
// (every node, pod, GPU unit and DRA claim, every usage accumulator's exact
// state, the hourly series, notes, partial list and unknown facts) and the
// raw hourly sums, which no file holds.
func fingerprint(t *testing.T, p *cluster.Prepared) string {
	t.Helper()
	var b bytes.Buffer
	if err := snapshot.Write(&b, p.View()); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	h.Write(b.Bytes())
	if err := json.NewEncoder(h).Encode(p.HourSums()); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// draMIGSnapshot is a small cluster with what the demo lacks: GPUs a DRA
// driver publishes (one unit shared by a claim's two pods) and a MIG node.
func draMIGSnapshot() *cluster.Snapshot {
	day := float64(24 * 3600)
	dra := clustertest.Node("dra-a").Resources(96, 1152).Instance("p4d.24xlarge", cluster.OnDemand).GPUs(8, "A100-40GB").Obj()
	for i := range dra.GPUs {
		dra.GPUs[i].Allocator, dra.GPUs[i].Driver = cluster.DRA, cluster.DRAGPUDriver
	}
	mig := clustertest.Node("mig-a").Resources(96, 1152).Instance("p4d.24xlarge", cluster.OnDemand).MIG("A100-40GB", "3g.20gb", "2g.10gb", "1g.5gb").Obj()
	pods := []cluster.Pod{
		clustertest.Pod("ml", "train").On("dra-a").Owner("Job", "train").Requests(8000, 64).Holds("dra-a/gpu0", 0.6, day).Obj(),
		clustertest.Pod("ml", "eval").On("dra-a").Owner("Deployment", "eval").Requests(2000, 16).Holds("dra-a/gpu1", 0.05, day).Obj(),
		clustertest.Pod("web", "infer").On("mig-a").Owner("Deployment", "infer").Requests(4000, 32).Holds(mig.GPUs[0].Units[0].ID, 0.3, day).Obj(),
	}
	return &cluster.Snapshot{Window: clustertest.Window(24), Source: "dra+mig fixture", Nodes: []cluster.Node{dra, mig}, Pods: pods,
		DRA: &cluster.DRAInfo{Drivers: []cluster.DRADriver{{Name: cluster.DRAGPUDriver, Devices: 8}}}}
}

// Ownership in the types (issue 24.3): a snapshot a front end holds is
// read-only to every use case. Each use case runs on the demo and on a
// DRA/MIG fixture held in memory (as the service holds its window), and
// the snapshot's content must be the same afterwards, byte for byte. A use
// case that writes the snapshot it was given — drops a series, appends a
// note, edits a pod through a returned slice — fails here.
func TestUseCasesLeaveTheSnapshot(t *testing.T) {
	t.Parallel()
	demo, err := DemoSnapshot(DefaultDemo())
	if err != nil {
		t.Fatal(err)
	}
	fixtures := map[string]*cluster.Prepared{"demo": demo, "dra+mig": clustertest.Prepare(t, draMIGSnapshot())}
	for name, prep := range fixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, ctx := testApp(), context.Background()
			mem := &InMemory{Prepared: prep}
			data := Data{Source: Source{Snapshot: mem}}
			rec := RecommendRequest{Data: data}
			plan := DefaultPlanRequest()
			plan.Data = data
			adv := DefaultAdviseRequest()
			adv.Data = data
			report := DefaultReportRequest()
			report.Data = data
			breakdown := DefaultBreakdownRequest()
			breakdown.Data = data
			breakdown.Units = true
			audit := DefaultAuditRequest()
			audit.Data = data
			inv := DefaultInventoryRequest()
			inv.Data = data
			quota := DefaultQuotaRequest()
			quota.Data = data
			pol := DefaultPolicyRequest()
			pol.Data = &data
			kq := DefaultKueueRequest()
			kq.Data = data
			cases := []struct {
				name string
				run  func() error
			}{
				{"report", func() error { _, err := a.Report(ctx, report); return err }},
				{"breakdown", func() error { _, err := a.Breakdown(ctx, breakdown); return err }},
				{"recommend", func() error { _, err := a.Recommend(ctx, rec); return err }},
				{"advise", func() error { _, err := a.Advise(ctx, adv); return err }},
				{"plan", func() error { _, err := a.Plan(ctx, plan); return err }},
				{"audit", func() error { _, err := a.Audit(ctx, audit); return err }},
				{"inventory", func() error { _, err := a.Inventory(ctx, inv); return err }},
				{"quota", func() error { _, err := a.GenerateQuota(ctx, quota); return err }},
				{"generate resources", func() error { _, err := a.GenerateResources(ctx, rec); return err }},
				{"generate vpa", func() error { _, err := a.GenerateVPA(ctx, rec); return err }},
				{"generate time-slicing", func() error { _, err := a.GenerateTimeSlicing(ctx, rec); return err }},
				{"generate mig", func() error { _, err := a.GenerateMIG(ctx, plan); return err }},
				{"generate plan", func() error { _, err := a.GeneratePlan(ctx, plan); return err }},
				{"generate autoscaling", func() error {
					_, err := a.GenerateAutoscaling(ctx, AutoscalingRequest{RecommendRequest: rec, PrometheusAddress: DefaultPrometheusAddress})
					return err
				}},
				{"generate node pools", func() error {
					_, err := a.GenerateNodePools(ctx, NodePoolRequest{Data: data, NodeClass: "EC2NodeClass/gpu", NodeClassGroup: "karpenter.k8s.aws"})
					return err
				}},
				{"generate spot", func() error {
					_, err := a.GenerateSpot(ctx, SpotRequest{Data: data, NodeClass: "EC2NodeClass/gpu", NodeClassGroup: "karpenter.k8s.aws"})
					return err
				}},
				{"generate reclaim", func() error { _, err := a.GenerateReclaim(ctx, ReclaimRequest{Data: data}); return err }},
				{"generate policy", func() error { _, err := a.GeneratePolicy(ctx, pol); return err }},
				{"generate kueue", func() error { _, err := a.GenerateKueue(ctx, kq); return err }},
			}
			want := fingerprint(t, prep)
			for _, c := range cases {
				if err := c.run(); err != nil {
					t.Errorf("%s: %v", c.name, err)
				}
				if got := fingerprint(t, prep); got != want {
					t.Fatalf("%s wrote the snapshot it was given (content %s, was %s)", c.name, got[:12], want[:12])
				}
			}
		})
	}
}

// The fingerprint sees a write through a returned slice (the test can
// fail): the one hole the type leaves.
func TestFingerprintSeesAWriteThroughASlice(t *testing.T) {
	t.Parallel()
	prep := clustertest.Prepare(t, draMIGSnapshot())
	before := fingerprint(t, prep)
	prep.Pods()[0].Containers[0].CPURequestMilli++
	if fingerprint(t, prep) == before {
		t.Error("a pod's CPU request changed and the fingerprint did not")
	}
}
