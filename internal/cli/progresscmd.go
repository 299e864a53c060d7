package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

type progressOptions struct {
	output  outputFlag
	history string
	cluster string
	prices  string
	bills   []string
}

func newProgressCmd(e *env) *cobra.Command {
	o := &progressOptions{}
	cmd := &cobra.Command{
		Use:   "progress [BEFORE AFTER]",
		Short: "Proof of savings: the plan's actions, what the cluster shows of them and the dollars they realised",
		Long: "progress shows the savings plan as a living checklist (docs/progress.md): the baseline pinned on\n" +
			"day 0, each ledger action under a stable id with what the cluster shows of it (applied, partly\n" +
			"applied n of m, pending, or rejected by a mark), why an action left the plan (done, obsolete,\n" +
			"superseded), and what each applied action realised: $/month before against after on equal\n" +
			"windows, with a range from the hour-to-hour noise, beside what the ledger predicted, and a total\n" +
			"that adds up to the spend's change to the cent.\n\n" +
			"With --history it reads the plan gpuwise serve --history keeps; with two snapshot files the first\n" +
			"pins the baseline (its ledger is the plan) and the second is the cluster now.\n\n" +
			"Exit codes: 0 written; 2 usage (no source or both, a bad flag); 3 input (a history without a\n" +
			"plan, an unreadable snapshot or history).",
		Example: "  gpuwise progress --history /var/lib/gpuwise/history.db\n" +
			"  gpuwise progress before.gwsnap after.gwsnap -o markdown\n" +
			"  gpuwise progress mark consolidate-3fa2c1 applied --history /var/lib/gpuwise/history.db",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 0 && len(args) != 2 {
				return usageErrorf("%s takes two snapshot files, BEFORE and AFTER, or none with --history, got %d", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runProgress(cmd.Context(), o, e, args) },
	}
	fs := cmd.Flags()
	o.output.register(fs, render.Formats)
	fs.StringVar(&o.history, "history", "", "the history file gpuwise serve --history writes")
	fs.StringVar(&o.cluster, "cluster", "", "the cluster whose plan to show (default: the only one in the history)")
	fs.StringVar(&o.prices, "prices", "", "price override file (YAML or CSV), for snapshots")
	registerBill(fs, &o.bills)
	cmd.AddCommand(newProgressMarkCmd(e))
	return cmd
}

func runProgress(ctx context.Context, o *progressOptions, e *env, args []string) error {
	var p flagProblems
	format := o.output.parse(&p)
	switch {
	case o.history != "" && len(args) > 0:
		p.addf("give --history or two snapshot files, not both")
	case o.history == "" && len(args) == 0:
		p.addf("give --history FILE (the file gpuwise serve --history writes) or two snapshot files, BEFORE and AFTER")
	case o.history != "" && (o.prices != "" || len(o.bills) > 0):
		p.addf("--prices and --bill price snapshots: the history's dollars were priced when serve recorded them")
	}
	if err := p.check(func() error { return nil }); err != nil {
		return err
	}
	var res *app.ProgressResult
	if o.history != "" {
		h, err := app.OpenExistingHistory(ctx, o.history)
		if err != nil {
			return withCode(ExitInput, err)
		}
		defer h.Close()
		if res, err = h.Progress(ctx, app.ProgressRequest{Cluster: o.cluster, Path: o.history}); err != nil {
			return err
		}
	} else {
		var err error
		res, err = e.app.ProgressOfSnapshots(ctx, app.ProgressSnapshotsRequest{Before: app.Source{File: args[0]}, After: app.Source{File: args[1]},
			Prices: app.MustLoadPrices(o.prices, o.bills), Cluster: o.cluster})
		if err != nil {
			return err
		}
	}
	return render.Progress(e.Out, progressInput(res), format, e.renderOptions())
}

func progressInput(r *app.ProgressResult) render.ProgressInput {
	return render.ProgressInput{Cluster: r.Cluster, Source: r.Source, Plan: r.Plan, Proof: r.Proof, Notes: r.Notes}
}

type markOptions struct {
	history, cluster, note string
}

func newProgressMarkCmd(e *env) *cobra.Command {
	o := &markOptions{}
	cmd := &cobra.Command{
		Use:   "mark ID applied|rejected|clear",
		Short: "Mark a tracked action applied or rejected (or clear the mark) in serve's history",
		Long: "mark records a user's word on a tracked action in the history file gpuwise serve keeps (safe while\n" +
			"serve runs: SQLite serialises the writes). What the cluster shows still counts: an action the\n" +
			"cluster shows applied stays applied; rejected keeps it off the checklist's pending list.\n\n" +
			"Exit codes: 0 recorded; 2 usage (an unknown id or status); 3 input (no history or no plan).",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("%s takes an action id and applied, rejected or clear, got %d argument(s)", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.history == "" {
				return usageErrorf("history: give --history FILE (the file gpuwise serve --history writes)")
			}
			status := args[1]
			if status == "clear" {
				status = ""
			} else if status == "" {
				status = "(empty)"
			}
			req := app.MarkRequest{Cluster: o.cluster, ID: args[0], Status: status, Note: o.note}
			if err := req.Validate(); err != nil {
				return err
			}
			h, err := app.OpenExistingHistory(cmd.Context(), o.history)
			if err != nil {
				return withCode(ExitInput, err)
			}
			defer h.Close()
			a, err := e.app.Mark(cmd.Context(), h, req)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.Out, "%s: %s (%s)\n", a.ID, a.Status, a.Detection)
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.history, "history", "", "the history file gpuwise serve --history writes")
	fs.StringVar(&o.cluster, "cluster", "", "the cluster whose plan holds the action (default: the only one)")
	fs.StringVar(&o.note, "note", "", "why (kept with the mark, at most 1000 characters)")
	return cmd
}
