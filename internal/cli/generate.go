package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/generate"
)

func newGenerateCmd(e *env) *cobra.Command {
	gen := &cobra.Command{
		Use:   "generate",
		Short: "Write the manifests and commands that implement the recommendations (never applies them)",
		Long: "generate turns `gpuwise recommend`'s results into files a platform engineer reviews and applies:\n" +
			"strategic-merge resource patches, VPA objects in updateMode \"Off\", a device-plugin time-slicing\n" +
			"ConfigMap with its node label commands, and a mig-parted ConfigMap with nvidia.com/mig.config\n" +
			"label commands. Every file is validated against the upstream schema before it is written.\n" +
			"Without -d the files are printed as one multi-document YAML stream.",
		Args: cobra.ArbitraryArgs,
		RunE: helpOrUnknown,
	}
	gen.AddCommand(
		newGenerateResourcesCmd(e),
		newGenerateRecsCmd(e, "vpa", `VerticalPodAutoscaler objects in updateMode "Off" for the right-sized workloads`, (*app.App).GenerateVPA),
		newGenerateRecsCmd(e, "timeslicing", "Device-plugin time-slicing ConfigMap and node label commands for dev GPUs", (*app.App).GenerateTimeSlicing),
		newGeneratePlanCmd(e, "mig", "mig-parted ConfigMap (config.yaml) and nvidia.com/mig.config label commands: the plan's MIG layouts", (*app.App).GenerateMIG),
		newGeneratePlanCmd(e, "plan", "mig-parted and device-plugin configs, node commands and workload patches for `gpuwise plan`", (*app.App).GeneratePlan),
		newGenerateAutoscalingCmd(e), newGenerateNodePoolCmd(e), newGenerateSpotCmd(e), newGenerateReclaimCmd(e))
	gen.AddCommand(newGeneratePolicyCmd(e), newGenerateQuotaCmd(e), newGenerateKueueCmd(e))
	return gen
}

const dirUsage = "write one file per artefact under this directory (default: a YAML stream on stdout)"

// newGenerateRecsCmd is a generate subcommand built from recommendations.
func newGenerateRecsCmd(e *env, use, short string, gen func(*app.App, context.Context, app.RecommendRequest) (*app.GenerateResult, error)) *cobra.Command {
	o := &recommendFlags{}
	return generateCmd(e, use+" "+dataUsage, short, o.register, o.request, gen)
}

// resourcesFlags are `generate resources`' flags: the recommendations'
// and the rollout's pace.
type resourcesFlags struct {
	recommendFlags
	wavePercent int
	waveHistory string
}

func (f *resourcesFlags) register(fs *pflag.FlagSet) {
	f.recommendFlags.register(fs)
	fs.IntVar(&f.wavePercent, "wave-percent", generate.DefaultWavePercent,
		"share of the patched workloads each rollout wave changes, 1-100 (one wave a day; rollout/waves.md)")
	fs.StringVar(&f.waveHistory, "wave-history", "",
		"the rollout history apply.sh and rollback.sh append to (rollout/history.tsv): workloads applied there go in no new wave")
}

func (f *resourcesFlags) request(p *flagProblems) app.ResourcesRequest {
	return app.ResourcesRequest{RecommendRequest: f.recommendFlags.request(p), WavePercent: f.wavePercent, WaveHistory: f.waveHistory}
}

func newGenerateResourcesCmd(e *env) *cobra.Command {
	o := &resourcesFlags{}
	return generateCmd(e, "resources "+dataUsage,
		"Strategic-merge patches of CPU, memory and GPU resources per workload, rolled out in waves",
		o.register, o.request, (*app.App).GenerateResourcesPaced)
}

// dataUsage is the source part of a generate subcommand's usage line.
const dataUsage = "[--from FILE | --prometheus URL | --demo | --context CTX]"

// generateCmd is a generate subcommand: register adds its flags (-d is
// added here), request turns them into a request (problems into p), and
// gen (a method expression: the App is the one in use when the command
// runs, with its progress reporting) runs the use case on the validated
// request.
func generateCmd[R interface{ Validate() error }](e *env, use, short string, register func(*pflag.FlagSet),
	request func(p *flagProblems) R, gen func(*app.App, context.Context, R) (*app.GenerateResult, error)) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   use + " [-d DIR]",
		Short: short,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p flagProblems
			req := request(&p)
			if err := p.check(req.Validate); err != nil {
				return err
			}
			return emitGenerated(e.Streams, dir, func() (*app.GenerateResult, error) { return gen(e.app, cmd.Context(), req) })
		},
	}
	register(cmd.Flags())
	cmd.Flags().StringVarP(&dir, "dir", "d", "", dirUsage)
	return cmd
}

// newGeneratePlanCmd is a generate subcommand built from the plan.
func newGeneratePlanCmd(e *env, use, short string, gen func(*app.App, context.Context, app.PlanRequest) (*app.GenerateResult, error)) *cobra.Command {
	o := &planOptions{}
	cmd := &cobra.Command{
		Use:   use + " [--from FILE | --prometheus URL | --demo | --context CTX] [-d DIR]",
		Short: short,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p flagProblems
			req := o.request(&p)
			if err := p.check(req.Validate); err != nil {
				return err
			}
			return emitGenerated(e.Streams, o.dir, func() (*app.GenerateResult, error) { return gen(e.app, cmd.Context(), req) })
		},
	}
	o.register(cmd, false)
	cmd.Flags().StringVarP(&o.dir, "dir", "d", "", dirUsage)
	return cmd
}

// emitGenerated runs the use case, prints its notes, then writes the files
// under dir, or as one YAML stream on stdout when dir is empty.
func emitGenerated(s Streams, dir string, gen func() (*app.GenerateResult, error)) error {
	res, err := gen()
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(s.Err, s.name()+": note: "+n)
	}
	switch {
	case len(res.Files) == 0:
		fmt.Fprintln(s.Err, s.name()+": note: nothing to generate")
	case dir != "":
		if err := app.WriteDir(dir, res.Files); err != nil {
			return err
		}
		fmt.Fprintf(s.Err, "%s: wrote %d files under %s\n", s.name(), len(res.Files), dir)
	default:
		if err := app.WriteFiles(s.Out, res.Files); err != nil {
			return err
		}
	}
	return partial(res.Partial)
}
