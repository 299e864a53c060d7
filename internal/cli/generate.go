package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

func newGenerateCmd(s Streams) *cobra.Command {
	gen := &cobra.Command{
		Use:   "generate",
		Short: "Write the manifests and commands that implement the recommendations (never applies them)",
		Long: "generate turns `gpuwise recommend`'s results into files a platform engineer reviews and applies:\n" +
			"strategic-merge resource patches, VPA objects in updateMode \"Off\", a device-plugin time-slicing\n" +
			"ConfigMap with its node label commands, and a mig-parted ConfigMap with nvidia.com/mig.config\n" +
			"label commands. Every file is validated against the upstream schema before it is written.\n" +
			"Without -d the files are printed as one multi-document YAML stream.",
		Args: cobra.NoArgs,
	}
	gen.AddCommand(newGenerateResourcesCmd(s), newGenerateVPACmd(s), newGenerateTimeSlicingCmd(s), newGenerateMIGCmd(s), newGeneratePlanCmd(s))
	return gen
}

// generateOptions are the flags every generate subcommand takes.
type generateOptions struct {
	recommendFlags
	dir string
}

// artefacts turns recommendations into files; notes say what was left out
// and why.
type artefacts func(r *rightsize.Result, s *cluster.Snapshot, p rightsize.Policy) (files []generate.File, notes []string, err error)

func newGenerateSubCmd(s Streams, use, short string, build artefacts) *cobra.Command {
	o := &generateOptions{}
	cmd := &cobra.Command{
		Use:   use + " [--from FILE | --prometheus URL | --demo | --context CTX] [-d DIR]",
		Short: short,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runGenerate(cmd.Context(), o, s, build) },
	}
	o.recommendFlags.register(cmd.Flags())
	cmd.Flags().StringVarP(&o.dir, "dir", "d", "", "write one file per artefact under this directory (default: a YAML stream on stdout)")
	return cmd
}

func runGenerate(ctx context.Context, o *generateOptions, s Streams, build artefacts) error {
	r, snap, partial, err := o.recommend(ctx)
	if err != nil {
		return err
	}
	files, notes, err := build(r, snap.Snapshot, o.loaded)
	if err != nil {
		return fmt.Errorf("generating: %w", err)
	}
	if err := emitArtefacts(s, o.dir, files, notes); err != nil {
		return err
	}
	return partial
}

// emitArtefacts prints the notes, then writes the files under dir, or as
// one YAML stream on stdout when dir is empty.
func emitArtefacts(s Streams, dir string, files []generate.File, notes []string) error {
	for _, n := range notes {
		fmt.Fprintln(s.Err, "gpuwise: note: "+n)
	}
	if len(files) == 0 {
		fmt.Fprintln(s.Err, "gpuwise: note: nothing to generate")
		return nil
	}
	if dir != "" {
		if err := generate.WriteDir(dir, files); err != nil {
			return inputError(err)
		}
		fmt.Fprintf(s.Err, "gpuwise: wrote %d files under %s\n", len(files), dir)
		return nil
	}
	return generate.WriteStream(s.Out, files)
}

func newGenerateResourcesCmd(s Streams) *cobra.Command {
	return newGenerateSubCmd(s, "resources", "Strategic-merge patches of CPU, memory and GPU resources per workload",
		func(r *rightsize.Result, _ *cluster.Snapshot, _ rightsize.Policy) ([]generate.File, []string, error) {
			return generate.RecommendedResources(r)
		})
}

func newGenerateVPACmd(s Streams) *cobra.Command {
	return newGenerateSubCmd(s, "vpa", `VerticalPodAutoscaler objects in updateMode "Off" for the right-sized workloads`,
		func(r *rightsize.Result, _ *cluster.Snapshot, p rightsize.Policy) ([]generate.File, []string, error) {
			return generate.RecommendedVPAs(r, p)
		})
}

func newGenerateTimeSlicingCmd(s Streams) *cobra.Command {
	return newGenerateSubCmd(s, "timeslicing", "Device-plugin time-slicing ConfigMap and node label commands for dev GPUs",
		func(r *rightsize.Result, snap *cluster.Snapshot, _ rightsize.Policy) ([]generate.File, []string, error) {
			return generate.RecommendedTimeSlicing(r, snap)
		})
}
