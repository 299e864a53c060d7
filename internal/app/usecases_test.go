package app

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/config"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// rowKeys are a report's row keys, in order.
func rowKeys(r *cost.Report) []string {
	var out []string
	for _, row := range r.Rows {
		out = append(out, row.Key)
	}
	return out
}

// A use case tested as a use case: each case is a request on the fixture
// (or a failure), and what the result must say. The CLI's golden files
// keep only how it is printed.
func TestReportUseCase(t *testing.T) {
	t.Parallel()
	prices := writeFile(t, "prices.yaml", "prices:\n  - match: {instanceType: p4d.24xlarge, region: us-east-1}\n    nodeUSDPerHour: 32\n")
	cases := []struct {
		name string
		req  func(r *ReportRequest)
		// want
		kind       Kind // of the error; 0 (Internal) with wantErr false: none
		wantErr    string
		nodeCost   float64
		keys       []string
		unpriced   float64 // provisioned GPU-hours without a price
		unallocGPU float64 // GPU $ left on the unallocated row(s)
	}{
		{name: "by workload", req: func(r *ReportRequest) { r.Report.By = "workload" }, nodeCost: fixtureNodeCost,
			keys:       []string{"ml/Job/train", "dev/StatefulSet/notebook", "web/Deployment/api", "__unallocated__"},
			unallocGPU: 4 * fixtureHours * p4dGPUUSDPerHour(t)},
		{name: "by namespace (the default)", nodeCost: fixtureNodeCost,
			keys: []string{"ml", "dev", "web", "__unallocated__"}, unallocGPU: 4 * fixtureHours * p4dGPUUSDPerHour(t)},
		{name: "idle shared over the cluster", req: func(r *ReportRequest) { r.Cost.IdleShare = cost.ShareCluster }, nodeCost: fixtureNodeCost,
			keys: []string{"ml", "dev", "web", "__unallocated__"}, unallocGPU: 0}, // hours stay, dollars move
		{name: "price overrides", req: func(r *ReportRequest) { r.Prices = MustLoadPrices(prices, nil) }, nodeCost: fixtureHours * (32 + g6USDPerHour),
			keys: []string{"ml", "dev", "web", "__unallocated__"}, unallocGPU: -1},
		{name: "an unknown instance type is unpriced, not $0",
			req: func(r *ReportRequest) {
				r.Source.File = fixtureFile(t, func(s *cluster.Snapshot) { s.Nodes[1].InstanceType = "x9.unknown" })
			},
			nodeCost: fixtureHours * p4dUSDPerHour, unpriced: fixtureHours, unallocGPU: 4 * fixtureHours * p4dGPUUSDPerHour(t),
			keys: []string{"ml", "dev", "web", "__unallocated__"}},
		{name: "another window than the file's", req: func(r *ReportRequest) { r.Window = 48 * 3600e9 }, kind: Usage, wantErr: "holds usage summaries for 24h0m0s"},
		{name: "a missing file", req: func(r *ReportRequest) { r.Source.File += ".missing" }, kind: Input, wantErr: "fixture.gwsnap.missing"},
		{name: "a missing price file", req: func(r *ReportRequest) { r.Prices = MustLoadPrices(prices+".missing", nil) }, kind: Input, wantErr: "reading price overrides"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultReportRequest()
			req.Source = Source{File: fixtureFile(t, nil)}
			if tc.req != nil {
				tc.req(&req)
			}
			res, err := testApp().Report(context.Background(), req)
			if tc.wantErr != "" {
				if err == nil || KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v (kind %v), want kind %v with %q", err, KindOf(err), tc.kind, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := res.Report
			if err := r.Reconcile(); err != nil {
				t.Error(err)
			}
			tot := r.Totals
			if tot.Nodes != 2 || tot.GPUs != 9 || tot.Pods != 3 || tot.GPUPods != 2 {
				t.Errorf("nodes %d, GPUs %d, pods %d, GPU pods %d; want 2, 9, 3, 2", tot.Nodes, tot.GPUs, tot.Pods, tot.GPUPods)
			}
			h := tot.GPUHours
			if !near(h.Provisioned, 216) || !near(h.Allocated, 120) || !near(h.Active, 96*0.6+24*0.02) || !near(h.Idle, 24) || h.Unmeasured != 0 {
				t.Errorf("GPU-hours %+v, want 216 provisioned, 120 allocated, 58.08 active, 24 idle", h)
			}
			if !near(tot.NodeCost, tc.nodeCost) || !near(tot.TotalCost, tc.nodeCost) {
				t.Errorf("node cost $%v, total $%v, want $%v", tot.NodeCost, tot.TotalCost, tc.nodeCost)
			}
			if !near(tot.UnpricedGPUHours, tc.unpriced) {
				t.Errorf("unpriced GPU-hours %v, want %v", tot.UnpricedGPUHours, tc.unpriced)
			}
			if got := rowKeys(r); !sameSet(got, tc.keys) {
				t.Errorf("rows %q, want %q", got, tc.keys)
			}
			if tc.unallocGPU >= 0 {
				got := 0.0
				for _, row := range r.Rows {
					if row.Key == "__unallocated__" {
						got += row.GPUCost.Unallocated
					}
				}
				if !near(got, tc.unallocGPU) {
					t.Errorf("unallocated GPU $ on the unallocated row %v, want %v", got, tc.unallocGPU)
				}
			}
			if res.Ledger == nil || res.LedgerErr != nil {
				t.Fatalf("ledger %v, error %v", res.Ledger != nil, res.LedgerErr)
			}
			if res.IdleCauses == nil {
				t.Error("no idle causes")
			}
			if res.Partial != nil {
				t.Errorf("partial: %v", res.Partial)
			}
		})
	}
}

// p4dGPUUSDPerHour is the GPU part of a p4d.24xlarge's price per GPU, as
// the catalog splits it.
func p4dGPUUSDPerHour(t *testing.T) float64 {
	t.Helper()
	a, err := cost.Allocate(clustertest.Prepare(t, fixtureSnapshot()), pricing.Embedded(), cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range a.Lines {
		if l.Node.Name == "train-1" && l.Pod == nil {
			return l.GPUCost.Unallocated / (4 * fixtureHours)
		}
	}
	t.Fatal("no unallocated line on train-1")
	return 0
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestBreakdownUseCase(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		by      []string
		wantErr string
	}{
		{name: "the service's groupings", by: []string{"workload", "namespace", "node", "gpu-model", "pod"}},
		{name: "one grouping", by: []string{"capacity-type"}},
		{name: "none", by: nil, wantErr: "at least one grouping"},
		{name: "an unknown one", by: []string{"team"}, wantErr: `by: "team"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultBreakdownRequest()
			req.Source, req.By = Source{Snapshot: fixtureMemory(t)}, tc.by
			res, err := testApp().Breakdown(context.Background(), req)
			if tc.wantErr != "" {
				if KindOf(err) != Usage || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want a usage error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Reports) != len(tc.by) {
				t.Fatalf("%d reports for %d groupings", len(res.Reports), len(tc.by))
			}
			for _, by := range tc.by {
				r := res.Reports[by]
				if r == nil || r.By != by {
					t.Fatalf("no report by %s", by)
				}
				if err := r.Reconcile(); err != nil {
					t.Errorf("by %s: %v", by, err)
				}
				if !near(r.Totals.NodeCost, fixtureNodeCost) {
					t.Errorf("by %s: node cost $%v, want $%v: one allocation, grouped", by, r.Totals.NodeCost, fixtureNodeCost)
				}
			}
		})
	}
}

func TestRecommendUseCase(t *testing.T) {
	t.Parallel()
	policy := writeFile(t, "policy.yaml", "cpu:\n  headroom: 0.5\n")
	cases := []struct {
		name     string
		policy   string
		headroom float64
		wantErr  string
	}{
		{name: "default policy", headroom: config.DefaultPolicies().Rightsize.CPU.Headroom},
		{name: "a policy file", policy: policy, headroom: 0.5},
		{name: "a missing policy file", policy: policy + ".missing", wantErr: "reading policy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultRecommendRequest()
			req.Source, req.Policies = Source{File: fixtureFile(t, nil)}, MustLoadPolicies(tc.policy)
			res, err := testApp().Recommend(context.Background(), req)
			if tc.wantErr != "" {
				if KindOf(err) != Input || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want an input error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Policy.CPU.Headroom != tc.headroom {
				t.Errorf("CPU headroom %v, want %v", res.Policy.CPU.Headroom, tc.headroom)
			}
			if res.Result == nil || res.Ledger == nil || res.LedgerErr != nil {
				t.Fatalf("result %v, ledger part %v, ledger error %v", res.Result != nil, res.Ledger != nil, res.LedgerErr)
			}
			// The fixture has no container usage series: nothing is
			// right-sized, and every GPU workload is accounted for.
			if len(res.Result.Containers) != 0 {
				t.Errorf("%d container recommendations without usage", len(res.Result.Containers))
			}
		})
	}
}

func TestAdviseUseCase(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		req     func(r *AdviseRequest)
		levers  []string
		wantErr string
	}{
		{name: "every lever on by default", levers: []string{ledger.LeverRightsize, ledger.LeverShape, ledger.LeverConsolidate,
			ledger.LeverAutoscale, ledger.LeverReclaim, ledger.LeverQueue, ledger.LeverSpot, ledger.LeverCommit, ledger.LeverQuantize}},
		{name: "two levers", req: func(r *AdviseRequest) { r.Levers = []string{ledger.LeverConsolidate, ledger.LeverRightsize} },
			levers: []string{ledger.LeverRightsize, ledger.LeverConsolidate}},
		{name: "the region lever when the data size is given", req: func(r *AdviseRequest) { r.Region.DataGB = 100 },
			levers: []string{ledger.LeverRightsize, ledger.LeverShape, ledger.LeverConsolidate, ledger.LeverAutoscale,
				ledger.LeverReclaim, ledger.LeverQueue, ledger.LeverSpot, ledger.LeverRegion, ledger.LeverCommit, ledger.LeverQuantize}},
		{name: "an unknown lever", req: func(r *AdviseRequest) { r.Levers = []string{"magic"} }, wantErr: `unknown lever "magic"`},
		{name: "a negative rate", req: func(r *AdviseRequest) { r.EngineerUSDPerHour = -1 }, wantErr: "engineer rate"},
		{name: "a bad autoscaling flag", req: func(r *AdviseRequest) { v := 2.0; r.Autoscale.TargetActivity = &v }, wantErr: "--target-activity"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultAdviseRequest()
			req.Source = Source{File: fixtureFile(t, nil)}
			if tc.req != nil {
				tc.req(&req)
			}
			res, err := testApp().Advise(context.Background(), req)
			if tc.wantErr != "" {
				if KindOf(err) != Usage || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want a usage error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			l := res.Ledger
			var names []string
			for _, lr := range l.Levers {
				names = append(names, lr.Name)
			}
			if !slices.Equal(names, tc.levers) {
				t.Errorf("levers %q, want %q", names, tc.levers)
			}
			if err := l.Reconcile(); err != nil {
				t.Error(err)
			}
			if math.Abs(l.BeforeUSDMonth-fixtureMonthCost) > 0.005 { // priced in cents
				t.Errorf("before $%v/month, want the nodes' $%v", l.BeforeUSDMonth, fixtureMonthCost)
			}
			if l.AfterUSDMonth > l.BeforeUSDMonth {
				t.Errorf("after $%v > before $%v", l.AfterUSDMonth, l.BeforeUSDMonth)
			}
		})
	}
}

func TestPlanUseCase(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		shapes  packing.Shapes
		recs    bool
		wantErr string
	}{
		{name: "current shapes", shapes: packing.CurrentShapes},
		{name: "right-sized shapes", shapes: packing.RecommendedShapes, recs: true},
		{name: "unknown shapes", shapes: "tiny", wantErr: "shapes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultPlanRequest()
			req.Source, req.Shapes = Source{File: fixtureFile(t, nil)}, tc.shapes
			res, err := testApp().Plan(context.Background(), req)
			if tc.wantErr != "" {
				if KindOf(err) != Usage || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want a usage error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (res.Recommendations != nil) != tc.recs {
				t.Errorf("recommendations %v, want %v", res.Recommendations != nil, tc.recs)
			}
			if res.Plan == nil || res.Snapshot == nil {
				t.Fatal("no plan")
			}
			if err := res.Plan.Check(); err != nil {
				t.Errorf("the plan does not check: %v", err)
			}
		})
	}
}

func TestAuditUseCase(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		req    func(r *AuditRequest)
		want   []string // rules that must be found
		absent []string // rules that must not
	}{
		{name: "defaults", want: []string{audit.RuleNonGPUPod}},
		{name: "the web pod allowed as an agent", req: func(r *AuditRequest) { r.Audit.NodeAgents = append(r.Audit.NodeAgents, "web/api") },
			absent: []string{audit.RuleNonGPUPod}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultAuditRequest()
			req.Source = Source{File: fixtureFile(t, nil)}
			if tc.req != nil {
				tc.req(&req)
			}
			res, err := testApp().Audit(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			found := map[string]bool{}
			for _, f := range res.Result.Findings {
				found[f.Rule] = true
			}
			for _, r := range tc.want {
				if !found[r] {
					t.Errorf("no %s finding in %v", r, found)
				}
			}
			for _, r := range tc.absent {
				if found[r] {
					t.Errorf("a %s finding", r)
				}
			}
			if res.Admission == nil || !slices.ContainsFunc(res.Admission.Notes, func(n string) bool { return strings.Contains(n, "live cluster only") }) {
				t.Errorf("the admission section does not say a snapshot has no policy status: %+v", res.Admission)
			}
		})
	}
}

func TestInventoryUseCase(t *testing.T) {
	t.Parallel()
	for _, src := range []struct {
		name string
		src  func(t *testing.T) Source
	}{
		{"a file", func(t *testing.T) Source { return Source{File: fixtureFile(t, nil)} }},
		{"in memory", func(t *testing.T) Source { return Source{Snapshot: fixtureMemory(t)} }},
	} {
		t.Run(src.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultInventoryRequest()
			req.Source = src.src(t)
			res, err := testApp().Inventory(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			gpus := 0
			for _, n := range res.Inventory.Nodes {
				names = append(names, n.Name)
				gpus += n.GPUs
			}
			if !slices.Equal(names, []string{"dev-1", "train-1"}) || gpus != 9 {
				t.Errorf("nodes %q with %d GPUs, want dev-1 and train-1 with 9", names, gpus)
			}
		})
	}
}

func TestQuotaUseCase(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		percentile float64
		headroom   float64
		namespaces []string
		wantErr    string
	}{
		{name: "defaults", percentile: DefaultQuotaRequest().Percentile, headroom: DefaultQuotaRequest().Headroom, namespaces: []string{"dev", "ml"}},
		{name: "a percentile above 1", percentile: 2, headroom: 0.2, wantErr: "percentile"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultQuotaRequest()
			req.Source, req.Percentile, req.Headroom = Source{File: fixtureFile(t, nil)}, tc.percentile, tc.headroom
			res, err := testApp().GenerateQuota(context.Background(), req)
			if tc.wantErr != "" {
				if KindOf(err) != Usage || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want a usage error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ns := range res.Quota.Namespaces {
				got = append(got, ns.Namespace)
			}
			if !slices.Equal(got, tc.namespaces) {
				t.Errorf("quotas for %q, want %q", got, tc.namespaces)
			}
			if len(res.Files) == 0 {
				t.Error("no files")
			}
		})
	}
}

// The inventory of a snapshot in memory refuses another window than the
// snapshot's, and of a missing file names the file.
func TestInventoryUseCaseRefusals(t *testing.T) {
	t.Parallel()
	req := DefaultInventoryRequest()
	req.Source, req.Window = Source{Snapshot: fixtureMemory(t)}, 48*3600e9
	if _, err := testApp().Inventory(context.Background(), req); KindOf(err) != Usage || !strings.Contains(err.Error(), "usage summaries for 1d") {
		t.Errorf("another window: %v, want a usage error", err)
	}
	req.Source, req.Window = Source{File: fixtureFile(t, nil) + ".missing"}, 0
	if _, err := testApp().Inventory(context.Background(), req); KindOf(err) != Input || !strings.Contains(err.Error(), ".missing") {
		t.Errorf("a missing file: %v, want an input error naming it", err)
	}
}
