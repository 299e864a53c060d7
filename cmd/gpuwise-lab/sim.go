package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/sim"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// simOptions are the flags of the sim commands.
type simOptions struct {
	Seed        uint64
	Scale       int
	Days        float64
	Step        time.Duration
	Start       string
	Out         string
	SnapshotOut string
	Addr        string
}

func (o *simOptions) config() (sim.Config, error) {
	// The AMD and the Neuron node, whose exporters gpuwise reads from
	// Prometheus (docs/accelerators.md).
	cfg := sim.Config{Seed: o.Seed, Scale: o.Scale, Window: time.Duration(o.Days * 24 * float64(time.Hour)), Step: o.Step, AMD: true, Neuron: true}
	if o.Start != "" {
		t, err := time.Parse(time.RFC3339, o.Start)
		if err != nil {
			return cfg, usageErrorf("start: %q is not an RFC 3339 time", o.Start)
		}
		cfg.Start = t
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usageErrorf("%v", err)
	}
	return cfg, nil
}

func (o *simOptions) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Uint64Var(&o.Seed, "seed", 1, "simulation seed")
	f.IntVar(&o.Scale, "scale", 1, "cluster size multiplier, in copies of the demo cell (gpuwise inventory --demo counts one)")
	f.Float64Var(&o.Days, "days", 14, "days of history")
	f.DurationVar(&o.Step, "step", 5*time.Minute, "sample step (the scrape interval)")
}

func newSimCmd(out io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Expose the simulated cluster as dcgm-exporter, cAdvisor and kube-state-metrics series",
	}
	cmd.AddCommand(newSimHistoryCmd(out), newSimServeCmd(out))
	return cmd
}

func newSimHistoryCmd(out io.Writer) *cobra.Command {
	o := &simOptions{}
	cmd := &cobra.Command{
		Use:   "history -o FILE",
		Short: "Write the simulated cluster's history as OpenMetrics for promtool tsdb create-blocks-from openmetrics",
		RunE: runE(func() error {
			cfg, err := o.config()
			if err != nil {
				return err
			}
			if o.Out == "" {
				return usageErrorf("history needs -o FILE")
			}
			return writeHistory(cfg, o, out)
		}),
	}
	o.register(cmd)
	cmd.Flags().StringVar(&o.Start, "start", "", "window start, RFC 3339 (default 2026-11-01T00:00:00Z)")
	cmd.Flags().StringVarP(&o.Out, "output", "o", "", "OpenMetrics file to write")
	cmd.Flags().StringVar(&o.SnapshotOut, "snapshot-out", "", "also write the ground-truth snapshot (gzip JSON)")
	return cmd
}

func writeHistory(cfg sim.Config, o *simOptions, out io.Writer) error {
	f, err := os.Create(o.Out)
	if err != nil {
		return err
	}
	start := time.Now()
	snap, err := sim.WriteOpenMetrics(cfg, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.Out, err)
	}
	if o.SnapshotOut != "" {
		if err := snapshot.WriteFile(o.SnapshotOut, snap); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "wrote %s: %d nodes, %d pods, %s window, in %s\n", o.Out, len(snap.Nodes), len(snap.Pods), cfg.Window, time.Since(start).Round(time.Millisecond))
	return nil
}

func newSimServeCmd(out io.Writer) *cobra.Command {
	o := &simOptions{Days: 1}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the simulated cluster's current series on a loopback /metrics endpoint",
		RunE: runE(func() error {
			cfg, err := o.config()
			if err != nil {
				return err
			}
			body, err := sim.Exposition(sim.LiveConfig(cfg, time.Now()))
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", o.Addr)
			if err != nil {
				return fmt.Errorf("listening on %s: %w", o.Addr, err)
			}
			fmt.Fprintf(out, "serving http://%s/metrics (%d bytes)\n", ln.Addr(), len(body))
			return http.Serve(ln, sim.Handler(body))
		}),
	}
	o.register(cmd)
	cmd.Flags().StringVar(&o.Addr, "addr", "127.0.0.1:9400", "listen address (loopback)")
	return cmd
}
