package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Streams are the command's I/O, injected so tests can capture them.
type Streams struct {
	Out, Err io.Writer
	// OutIsTTY enables colour in table output.
	OutIsTTY bool
}

// Version is set at build time with -ldflags.
var Version = "dev"

// Execute runs gpuwise with args and returns the exit code.
func Execute(args []string, s Streams) int {
	root := newRoot(s)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		fmt.Fprintf(s.Err, "gpuwise: %v\n", err)
	}
	return ExitCode(err)
}

func newRoot(s Streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "gpuwise",
		Short: "Find and recover the money your Kubernetes cluster burns on idle GPUs",
		Long: "gpuwise measures GPU allocation time against GPU compute time per pod, team and namespace,\n" +
			"prices the gap, and produces the changes that close it. Read-only unless a command says otherwise.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	root.AddCommand(newDemoCmd(s), newReportCmd(s))
	root.AddCommand(newAuditCmd(s), newCollectCmd(s))
	root.AddCommand(newPlanCmd(s), newAdviseCmd(s))
	root.AddCommand(newRecommendCmd(s), newGenerateCmd(s))
	return root
}

// StdStreams returns the process's streams.
func StdStreams() Streams {
	st, err := os.Stdout.Stat()
	tty := err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("NO_COLOR") == ""
	return Streams{Out: os.Stdout, Err: os.Stderr, OutIsTTY: tty}
}
