package cli

import (
	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
)

// sourceGiven reports whether any flag naming a source was set: without
// one, generate policy writes the defaults and reads nothing.
func sourceGiven(cmd *cobra.Command) bool {
	for _, f := range []string{"from", "demo", "prometheus", "kubeconfig", "context"} {
		if cmd.Flags().Changed(f) {
			return true
		}
	}
	return false
}

type policyOptions struct {
	sourceFlags
	settings, engine, mode, dir string
	kyvernoLegacy               bool
}

func newGeneratePolicyCmd(e *env) *cobra.Command {
	o := &policyOptions{}
	cmd := &cobra.Command{
		Use:   "policy [--engine native|kyverno|gatekeeper] [--mode warn|deny] [--policy-settings FILE] [--from FILE | --demo | --context CTX] [-d DIR]",
		Short: "Admission policies that keep GPU pods clean (ValidatingAdmissionPolicy, Kyverno, Gatekeeper), warn mode first",
		Long: "policy writes one admission policy per audit rule admission can enforce (GW002 non-GPU pods\n" +
			"tolerating the GPU taint, GW003 GPU containers without limits, GW004 GPU pods without the\n" +
			"toleration, GW006 whole GPUs in dev namespaces) plus cost-allocation labels and a cap on GPUs per\n" +
			"pod, for the API server's own ValidatingAdmissionPolicy (default), Kyverno or Gatekeeper, and a\n" +
			"MutatingAdmissionPolicy adding the GPU toleration to GPU pods. Policies start in warn mode;\n" +
			"rollout.sh flips them to deny. With a source (--from, --demo, --prometheus, --context) it learns\n" +
			"the GPU taint and the GPU Operator's namespace and says what each rule would refuse; without one\n" +
			"it writes the defaults. Settings: docs/policy.md.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p flagProblems
			req := app.PolicyRequest{Settings: app.MustLoadAdmissionSettings(o.settings), Engine: app.PolicyEngine(o.engine), Mode: app.PolicyMode(o.mode), KyvernoLegacy: o.kyvernoLegacy}
			if sourceGiven(cmd) {
				d := o.sourceFlags.data(&p)
				req.Data = &d
			}
			if err := p.check(req.Validate); err != nil {
				return err
			}
			return emitGenerated(e.Streams, o.dir, func() (*app.GenerateResult, error) { return e.app.GeneratePolicy(cmd.Context(), req) })
		},
	}
	fs := cmd.Flags()
	o.sourceFlags.register(fs)
	fs.StringVar(&o.settings, "policy-settings", "", "admission settings `FILE` (YAML, or a ConfigMap with it under policy.yaml); see docs/policy.md")
	fs.StringVar(&o.engine, "engine", string(app.NativePolicies), "native (ValidatingAdmissionPolicy), kyverno or gatekeeper")
	fs.StringVar(&o.mode, "mode", "", "rollout mode of every rule: warn (the default: admitted with a warning) or deny")
	fs.BoolVar(&o.kyvernoLegacy, "kyverno-legacy", false, "with --engine kyverno: kyverno.io/v1 ClusterPolicy (deprecated in Kyverno 1.19) instead of ValidatingPolicy")
	fs.StringVarP(&o.dir, "dir", "d", "", dirUsage)
	return cmd
}

type quotaOptions struct {
	sourceFlags
	percentile, headroom float64
	dir                  string
}

func newGenerateQuotaCmd(e *env) *cobra.Command {
	o := &quotaOptions{}
	def := app.DefaultQuotaRequest()
	cmd := &cobra.Command{
		Use:   "quota [--from FILE | --prometheus URL | --demo | --context CTX] [--percentile 0.95] [--headroom 0.2] [-d DIR]",
		Short: "A GPU ResourceQuota per namespace (whole, MIG, shared) sized from measured need, with the $ it caps",
		Long: "quota writes one ResourceQuota per namespace that requested GPUs in the window: for each GPU\n" +
			"resource (nvidia.com/gpu, nvidia.com/mig-*, nvidia.com/gpu.shared) requests.<resource> is the\n" +
			"time-weighted percentile of the units its pods requested at once, plus headroom, and the header\n" +
			"says the $/month it caps at the namespace's own price from the cost report. Peaks above the quota\n" +
			"are named. Sizing: docs/policy.md.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p flagProblems
			req := app.QuotaRequest{Data: o.sourceFlags.data(&p), Percentile: o.percentile, Headroom: o.headroom}
			if err := p.check(req.Validate); err != nil {
				return err
			}
			return emitGenerated(e.Streams, o.dir, func() (*app.GenerateResult, error) {
				res, err := e.app.GenerateQuota(cmd.Context(), req)
				if err != nil {
					return nil, err
				}
				return &res.GenerateResult, nil
			})
		},
	}
	fs := cmd.Flags()
	o.sourceFlags.register(fs)
	fs.Float64Var(&o.percentile, "percentile", def.Percentile, "percentile of the GPU units requested at once, over time, in (0, 1]")
	fs.Float64Var(&o.headroom, "headroom", def.Headroom, "headroom on top of the percentile, e.g. 0.2 for +20%")
	fs.StringVarP(&o.dir, "dir", "d", "", dirUsage)
	return cmd
}

type kueueOptions struct {
	sourceFlags
	percentile, headroom float64
	cohort, dir          string
}

func newGenerateKueueCmd(e *env) *cobra.Command {
	o := &kueueOptions{}
	def := app.DefaultKueueRequest()
	cmd := &cobra.Command{
		Use:   "kueue [--from FILE | --prometheus URL | --demo | --context CTX] [--percentile 0.95] [--headroom 0.2] [--cohort NAME] [-d DIR]",
		Short: "Kueue queues per team (ClusterQueues, LocalQueues, ResourceFlavors, a cohort) sized from measured need",
		Long: "kueue writes a ResourceFlavor per GPU product, one cohort, and per team (namespace running batch GPU\n" +
			"work) a ClusterQueue and its LocalQueue: each flavor's cpu, memory and GPU resources get a nominal quota\n" +
			"at the percentile of what the team's batch pods requested at once, plus headroom (as generate quota\n" +
			"sizes); the team lends its quota above its median need and may borrow up to the cohort's combined\n" +
			"quota. The cohort's header says how many GPUs pooling frees (the teams' separate peaks minus their\n" +
			"combined peak) and the $ the savings ledger counts for queueing the batch work. See docs/kueue.md.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p flagProblems
			req := app.KueueRequest{Data: o.sourceFlags.data(&p), Percentile: o.percentile, Headroom: o.headroom, Cohort: o.cohort}
			if err := p.check(req.Validate); err != nil {
				return err
			}
			return emitGenerated(e.Streams, o.dir, func() (*app.GenerateResult, error) {
				res, err := e.app.GenerateKueue(cmd.Context(), req)
				if err != nil {
					return nil, err
				}
				return &res.GenerateResult, nil
			})
		},
	}
	fs := cmd.Flags()
	o.sourceFlags.register(fs)
	fs.Float64Var(&o.percentile, "percentile", def.Percentile, "percentile of what each team's batch pods requested at once, over time, in (0, 1]")
	fs.Float64Var(&o.headroom, "headroom", def.Headroom, "headroom on top of the percentile, e.g. 0.2 for +20%")
	fs.StringVar(&o.cohort, "cohort", def.Cohort, "the cohort the teams' ClusterQueues share")
	fs.StringVarP(&o.dir, "dir", "d", "", dirUsage)
	return cmd
}
