package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gpuwise/gpuwise/internal/app"
)

// Streams are the command's I/O and clock, injected so tests can capture
// and fix them.
type Streams struct {
	Out, Err io.Writer
	// OutIsTTY enables colour in table output and fitting it to Width,
	// the terminal's columns.
	OutIsTTY bool
	Width    int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
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

// env is what every command needs: the streams and the use cases.
type env struct {
	Streams
	app *app.App
}

func newRoot(s Streams) *cobra.Command {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	e := &env{Streams: s, app: app.New(now)}
	root := &cobra.Command{
		Use:   "gpuwise",
		Short: "Find and recover the money your Kubernetes cluster burns on idle GPUs",
		Long: "gpuwise measures GPU allocation time against GPU compute time per pod, team and namespace,\n" +
			"prices the gap, and produces the changes that close it. Read-only unless a command says otherwise.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
		Args:          cobra.ArbitraryArgs,
		RunE:          helpOrUnknown,
	}
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	root.AddCommand(newDemoCmd(e), newReportCmd(e))
	root.AddCommand(newAuditCmd(e), newCollectCmd(e))
	root.AddCommand(newPlanCmd(e), newAdviseCmd(e))
	root.AddCommand(newRecommendCmd(e), newGenerateCmd(e))
	return root
}

// StdStreams returns the process's streams.
func StdStreams() Streams {
	st, err := os.Stdout.Stat()
	tty := err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("NO_COLOR") == ""
	s := Streams{Out: os.Stdout, Err: os.Stderr, OutIsTTY: tty}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && tty {
		s.Width = w
	}
	return s
}

// noArgs refuses arguments: every command takes flags only.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q (see %s --help)", cmd.CommandPath(), strings.Join(args, " "), cmd.CommandPath())
	}
	return nil
}

// helpOrUnknown is a command group's run: help without arguments, a usage
// error naming an unknown subcommand otherwise.
func helpOrUnknown(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	return usageErrorf("unknown command %q for %s (see %s --help)", args[0], cmd.CommandPath(), cmd.CommandPath())
}
