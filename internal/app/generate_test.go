package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// paths are the generated files' paths.
func paths(fs []generate.File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

// Every generate use case on the demo (which has every kind of
// workload and the hourly series) and on the fixture (which has no
// series): the files it writes and what it says it left out.
func TestGenerateUseCases(t *testing.T) {
	t.Parallel()
	demo := Source{Snapshot: demoMemory(t)}
	checkpointed := Source{File: fixtureFile(t, func(s *cluster.Snapshot) { s.Pods[0].CheckpointSeconds = 1800 })}
	fixture := Source{File: fixtureFile(t, nil)}
	recs := func(s Source) RecommendRequest { r := DefaultRecommendRequest(); r.Source = s; return r }
	plan := func(s Source) PlanRequest { r := DefaultPlanRequest(); r.Source = s; return r }
	scaling := func(s Source, hpa bool) AutoscalingRequest {
		return AutoscalingRequest{RecommendRequest: recs(s), HPA: hpa, PrometheusAddress: DefaultPrometheusAddress}
	}
	spot := func(s Source) SpotRequest {
		return SpotRequest{Data: Data{Source: s}, NodeClass: DefaultNodeClass, NodeClassGroup: DefaultNodeClassGroup}
	}
	cases := []struct {
		name string
		run  func(a *App, ctx context.Context) (*GenerateResult, error)
		// want: a file with each of these paths (or, ending in /, under it)
		files []string
		// a note containing each of these
		notes   []string
		noFiles bool
		wantErr string
	}{
		{name: "resources", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateResources(ctx, recs(demo))
		},
			files: []string{"patches/"}, notes: []string{"a PyTorchJob cannot be patched in place"}},
		{name: "vpa", run: func(a *App, ctx context.Context) (*GenerateResult, error) { return a.GenerateVPA(ctx, recs(demo)) },
			files: []string{"vpa/"}, notes: []string{"a VPA cannot target a PyTorchJob"}},
		{name: "time-slicing", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateTimeSlicing(ctx, recs(demo))
		},
			// the ledger counts none of the demo's time-slice shapes: the plan reverts them
			noFiles: true, notes: []string{"dev/Deployment/devbox-carol keeps its GPUs (time-slice recommended nvidia.com/gpu.shared): the consolidation plan reverts it"}},
		{name: "mig", run: func(a *App, ctx context.Context) (*GenerateResult, error) { return a.GenerateMIG(ctx, plan(demo)) },
			files: []string{"mig-parted/configmap.yaml", "mig-parted/apply.sh"}, notes: []string{"the consolidation plan's MIG layouts"}},
		{name: "plan", run: func(a *App, ctx context.Context) (*GenerateResult, error) { return a.GeneratePlan(ctx, plan(demo)) },
			files: []string{"mig-parted/configmap.yaml", "time-slicing/configmap.yaml"}, notes: []string{"gpuwise generate resources"}},
		{name: "keda", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateAutoscaling(ctx, scaling(demo, false))
		},
			files: []string{"keda/inference/chat-llm.yaml"}, notes: []string{"not scaled"}},
		{name: "hpa", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateAutoscaling(ctx, scaling(demo, true))
		},
			files: []string{"hpa/inference/chat-llm.yaml"}},
		{name: "autoscaling without hourly series", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateAutoscaling(ctx, scaling(fixture, false))
		}, noFiles: true, notes: []string{"the replicas each hour needs are unknown"}},
		{name: "autoscaling: KEDA needs an URL", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			r := scaling(demo, false)
			r.PrometheusAddress = "prometheus:9090"
			return a.GenerateAutoscaling(ctx, r)
		}, wantErr: "--prometheus-address"},
		{name: "node pools", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateNodePools(ctx, NodePoolRequest{Data: Data{Source: fixture}, NodeClass: DefaultNodeClass, NodeClassGroup: DefaultNodeClassGroup})
		}, files: []string{"nodepool/gpu-a100-40gb-aws.yaml", "nodepool/gpu-l4-aws.yaml"}},
		{name: "node pools: a bad node class", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateNodePools(ctx, NodePoolRequest{Data: Data{Source: fixture}, NodeClass: "gpu", NodeClassGroup: DefaultNodeClassGroup, GPUQuota: -1})
		}, wantErr: "--node-class \"gpu\""},
		{name: "spot: a checkpointed job", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateSpot(ctx, spot(checkpointed))
		},
			files: []string{"spot/README.yaml", "nodepool/gpu-a100-40gb-aws-spot.yaml"}, notes: []string{"Job ml/train: not patched"}},
		{name: "spot: nothing checkpoints", run: func(a *App, ctx context.Context) (*GenerateResult, error) { return a.GenerateSpot(ctx, spot(fixture)) },
			noFiles: true},
		{name: "reclaim", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateReclaim(ctx, ReclaimRequest{Data: Data{Source: demo}})
		}, files: []string{"reclaim/dev/deployment-devbox-bob.yaml"}},
		{name: "reclaim without hourly series", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GenerateReclaim(ctx, ReclaimRequest{Data: Data{Source: fixture}})
		}, noFiles: true, notes: []string{"idle stretches are unknown"}},
		{name: "policy learnt from a snapshot", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			d := Data{Source: demo}
			return a.GeneratePolicy(ctx, PolicyRequest{Data: &d, Engine: policy.Native})
		}, files: []string{"policy/native/gpuwise-pods.yaml"}, notes: []string{"would refuse"}},
		{name: "policy defaults for kyverno", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GeneratePolicy(ctx, PolicyRequest{Engine: policy.Kyverno})
		}, files: []string{"policy/kyverno/"}},
		{name: "policy: legacy kyverno only with kyverno", run: func(a *App, ctx context.Context) (*GenerateResult, error) {
			return a.GeneratePolicy(ctx, PolicyRequest{Engine: policy.Native, KyvernoLegacy: true})
		}, wantErr: "kyverno-legacy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := tc.run(testApp(), context.Background())
			if tc.wantErr != "" {
				if KindOf(err) != Usage || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want a usage error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := paths(res.Files)
			if tc.noFiles && len(got) > 0 {
				t.Errorf("files %q, want none", got)
			}
			for _, want := range tc.files {
				if !slices.ContainsFunc(got, func(p string) bool { return p == want || strings.HasSuffix(want, "/") && strings.HasPrefix(p, want) }) {
					t.Errorf("no %s among %q", want, got)
				}
			}
			for _, want := range tc.notes {
				if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, want) }) {
					t.Errorf("no note with %q among %q", want, res.Notes)
				}
			}
			for _, f := range res.Files {
				if len(f.Data) == 0 {
					t.Errorf("%s is empty", f.Path)
				}
			}
		})
	}
}

// The VPA generator reads only the right-sizing and builds no ledger; the
// resources and time-slicing generators take their GPU shapes from the
// savings ledger (Ledger.Shapes) and share one.
func TestGeneratorsFromRecommendationsShareOneLedger(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	mem := fixtureMemory(t)
	req := DefaultRecommendRequest()
	req.Source = Source{Snapshot: mem}
	counts := func() (int, int) {
		an, err := a.Analysis(ctx, req.Data)
		if err != nil {
			t.Fatal(err)
		}
		return len(an.recs), len(an.ledgers)
	}
	if _, err := a.GenerateVPA(ctx, req); err != nil {
		t.Fatalf("vpa: %v", err)
	}
	if recs, ledgers := counts(); recs != 1 || ledgers != 0 {
		t.Errorf("vpa: %d right-sizings and %d ledgers, want one right-sizing and no ledger", recs, ledgers)
	}
	for name, gen := range map[string]func(context.Context, RecommendRequest) (*GenerateResult, error){
		"resources": a.GenerateResources, "time-slicing": a.GenerateTimeSlicing} {
		if _, err := gen(ctx, req); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if recs, ledgers := counts(); recs != 1 || ledgers != 1 {
		t.Errorf("%d right-sizings and %d ledgers, want one of each, shared", recs, ledgers)
	}
}
