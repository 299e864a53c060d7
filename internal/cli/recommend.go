package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// recommendFlags are shared by recommend, plan and generate: where the
// snapshot comes from, the window, the prices and the policy.
type recommendFlags struct {
	sourceFlags
	policy string
}

func (f *recommendFlags) register(fs *pflag.FlagSet) {
	f.sourceFlags.register(fs)
	fs.StringVar(&f.policy, "policy", "", "recommendation policy file (YAML or JSON); see docs/recommendations.md")
}

// request is the recommend request the flags describe.
func (f *recommendFlags) request(p *flagProblems) app.RecommendRequest {
	return app.RecommendRequest{Data: f.sourceFlags.data(p), Policies: app.MustLoadPolicies(f.policy)}
}

type recommendOptions struct {
	recommendFlags
	output outputFlag
}

func newRecommendCmd(e *env) *cobra.Command {
	o := &recommendOptions{}
	cmd := &cobra.Command{
		Use:   "recommend [--from FILE | --prometheus URL | --demo | --context CTX]",
		Short: "Recommend CPU/memory requests per container and a GPU shape per workload, with evidence and $/month",
		Long: "recommend sizes every container's CPU and memory requests from measured usage (p95 CPU, p99\n" +
			"memory + 20%, OOM bump) and picks a GPU shape per workload: keep the whole GPU, a MIG profile,\n" +
			"a time-slice share (dev and notebook namespaces only) or a cheaper GPU model from the price\n" +
			"catalog. Each recommendation carries its evidence, a confidence and $/month saved; too little\n" +
			"data gives no recommendation and the reason. Nothing is applied: `gpuwise generate` writes the\n" +
			"manifests. Policy and formulas: docs/recommendations.md.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRecommend(cmd.Context(), o, e) },
	}
	o.recommendFlags.register(cmd.Flags())
	o.output.register(cmd.Flags(), render.Formats)
	return cmd
}

func runRecommend(ctx context.Context, o *recommendOptions, e *env) error {
	var p flagProblems
	req := o.request(&p)
	format := o.output.parse(&p)
	if err := p.check(req.Validate); err != nil {
		return err
	}
	res, err := e.app.Recommend(ctx, req)
	if err != nil {
		return err
	}
	if res.LedgerErr != nil {
		fmt.Fprintf(e.Err, "%s: note: no savings-ledger line: %v (the recommendations themselves are complete; `%s advise` shows the ledger's error)\n", e.name(), res.LedgerErr, e.name())
	}
	if err := render.Recommend(e.Out, res.Result, res.Ledger, format, e.renderOptions()); err != nil {
		return err
	}
	return partial(res.Partial)
}
