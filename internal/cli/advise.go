package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/render"
)

// adviseOptions are the flags of `gpuwise advise`. Temporary wiring until
// the use-case layer (internal/app) lands: then advise becomes a use case
// like the others.
type adviseOptions struct {
	recommendFlags
	output string
	levers []string
	rate   float64
}

func newAdviseCmd(s Streams) *cobra.Command {
	o := &adviseOptions{}
	formats := make([]string, len(render.LedgerFormats))
	for i, f := range render.LedgerFormats {
		formats[i] = string(f)
	}
	cmd := &cobra.Command{
		Use:   "advise [--from FILE | --prometheus URL | --demo | --context CTX]",
		Short: "The savings ledger: what to do first, and what each action is worth on top of the ones before it",
		Long: "advise applies the levers in order to one modelled cluster — right-size CPU/memory requests,\n" +
			"GPU shapes (MIG, time-slicing, cheaper models), consolidation — and lists the actions that get\n" +
			"there, each with the $/month it adds on top of the ones before it, effort, payback, confidence,\n" +
			"risk, prerequisites, evidence and the `gpuwise generate` command that carries it out; ranked by\n" +
			"saving per engineer-hour and phased over 30/60/90 days, with FinOps metrics and red flags. The\n" +
			"actions add up to before − after to the cent. Nothing is applied. Reference: docs/savings.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAdvise(cmd.Context(), o, s) },
	}
	o.recommendFlags.register(cmd.Flags())
	cmd.Flags().StringVarP(&o.output, "output", "o", "table", "output format: "+strings.Join(formats, ", "))
	cmd.Flags().StringSliceVar(&o.levers, "levers", nil, "levers to apply (default all, always in this order): "+strings.Join(ledger.LeverNames(), ", "))
	cmd.Flags().Float64Var(&o.rate, "engineer-rate", ledger.DefaultEngineerUSDPerHour, "engineering cost in $ per hour, for payback")
	return cmd
}

func runAdvise(ctx context.Context, o *adviseOptions, s Streams) error {
	f, err := render.ParseLedgerFormat(o.output)
	opts := ledger.DefaultOptions()
	opts.Levers, opts.EngineerUSDPerHour = o.levers, o.rate
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}
	if err := opts.Validate(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return usageErrorf("%s", strings.Join(problems, "; "))
	}
	recs, prep, partial, err := o.recommend(ctx)
	if err != nil {
		return err
	}
	catalog, err := loadPrices(o.prices)
	if err != nil {
		return err
	}
	opts.Policy = o.loaded
	l, err := ledger.Build(ledger.Input{Snapshot: prep, Prices: catalog, Recs: recs}, opts)
	if err != nil {
		return fmt.Errorf("building the savings ledger: %w", err)
	}
	if err := render.Ledger(s.Out, l, f); err != nil {
		return err
	}
	return partial
}
