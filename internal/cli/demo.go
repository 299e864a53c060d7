package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/sim"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

type demoOptions struct {
	reportFlags
	seed  uint64
	scale int
	save  string
}

func newDemoCmd(s Streams) *cobra.Command {
	o := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the full report on the embedded simulated cluster (no cluster needed)",
		Long: "demo generates a deterministic simulated GPU cluster (training, inference, idle notebooks,\n" +
			"MIG and time-sliced nodes, spot and on-demand capacity on AWS and Azure) with a week of usage,\n" +
			"and prints the same report `gpuwise report` gives for a real cluster.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runDemo(o, s) },
	}
	o.register(cmd.Flags())
	cmd.Flags().Uint64Var(&o.seed, "seed", sim.DefaultConfig().Seed, "simulation seed")
	cmd.Flags().IntVar(&o.scale, "scale", 1, "cluster size multiplier")
	cmd.Flags().StringVar(&o.save, "save", "", "also write the simulated snapshot to this file (gzip JSON)")
	return cmd
}

func runDemo(o *demoOptions, s Streams) error {
	opts, ropts, format, err := o.costOptions()
	if err != nil {
		return err
	}
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Scale = o.seed, o.scale
	if o.scale < 1 || o.scale > 1000 {
		return usageErrorf("scale: %d is outside 1..1000", o.scale)
	}
	if o.window != "" {
		if cfg.Window, err = parseWindow(o.window); err != nil {
			return err
		}
	}
	snap, err := sim.Generate(cfg)
	if err != nil {
		return fmt.Errorf("simulating cluster: %w", err)
	}
	if o.save != "" {
		if err := snapshot.WriteFile(o.save, snap); err != nil {
			return inputError(err)
		}
	}
	prep, err := prepare(snap)
	if err != nil {
		return err
	}
	r, why, err := buildReport(prep, opts, ropts)
	if err != nil {
		return err
	}
	return writeReport(s.Out, r, why, prep, opts.Prices, format, s)
}
