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
	"github.com/gpuwise/gpuwise/internal/progress"
)

// Streams are the command's I/O and clock, injected so tests can capture
// and fix them.
type Streams struct {
	Out, Err io.Writer
	// OutIsTTY enables colour in table output and fitting it to Width,
	// the terminal's columns.
	OutIsTTY bool
	Width    int
	// ErrIsTTY draws progress on Err (unless --quiet), ErrWidth columns
	// wide.
	ErrIsTTY bool
	ErrWidth int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Name is what help, usage lines and errors call the command: its
	// ProgramName ("kubectl gpuwise" for the kubectl-gpuwise binary);
	// empty means gpuwise.
	Name string
}

// name is the command's name for these streams.
func (s Streams) name() string {
	if s.Name == "" {
		return defaultName
	}
	return s.Name
}

// Version is set at build time with -ldflags.
var Version = "dev"

// Execute runs gpuwise with args and returns the exit code.
func Execute(args []string, s Streams) int {
	out := &outWriter{w: s.Out}
	if s.Out == nil {
		out.w = io.Discard
	}
	s.Out = out
	root, e := newCommand(s)
	root.SetArgs(args)
	err := root.Execute()
	e.stopProgress()
	if out.err != nil {
		// The result did not reach stdout (a full disk, a closed pipe):
		// an output error, whatever the command made of the write error.
		err = withCode(ExitOutput, fmt.Errorf("writing the result to standard output: %w", out.err))
	}
	if err != nil {
		fmt.Fprintf(s.Err, "%s: %v\n", s.name(), err)
	}
	return ExitCode(err)
}

// outWriter keeps the first error writing to stdout, so that a result
// that could not be written exits ExitOutput (issue 31: it exited 1).
type outWriter struct {
	w   io.Writer
	err error
}

func (o *outWriter) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil && o.err == nil {
		o.err = err
	}
	return n, err
}

// env is what every command needs: the streams and the use cases.
type env struct {
	Streams
	app *app.App
	progressState
}

func newRoot(s Streams) *cobra.Command {
	root, _ := newCommand(s)
	return root
}

// newCommand builds the command tree and the env its commands share.
func newCommand(s Streams) (*cobra.Command, *env) {
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
		// Every command but help starts the progress bar (when stderr is
		// a terminal and --quiet is off); Execute stops it.
		PersistentPreRun: func(*cobra.Command, []string) { e.startProgress() },
	}
	root.PersistentFlags().BoolVarP(&e.quiet, "quiet", "q", false, "no progress on stderr (it is drawn only when stderr is a terminal)")
	root.PersistentFlags().DurationVar(&e.delay, "progress-delay", progress.DefaultOptions().Delay, "how long a command runs before progress appears")
	_ = root.PersistentFlags().MarkHidden("progress-delay")
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	root.AddCommand(newDemoCmd(e), newReportCmd(e))
	root.AddCommand(newAuditCmd(e), newCollectCmd(e))
	root.AddCommand(newPlanCmd(e), newAdviseCmd(e))
	root.AddCommand(newInventoryCmd(e), newBillCmd(e))
	root.AddCommand(newRecommendCmd(e), newGenerateCmd(e))
	root.AddCommand(newServeCmd(e), newDiffCmd(e))
	root.AddCommand(newProgressCmd(e))
	rename(root, s.name())
	return root, e
}

// StdStreams returns the process's streams.
func StdStreams() Streams {
	st, err := os.Stdout.Stat()
	tty := err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("NO_COLOR") == ""
	s := Streams{Out: os.Stdout, Err: os.Stderr, OutIsTTY: tty, Name: ProgramName(os.Args[0])}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && tty {
		s.Width = w
	}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		s.ErrIsTTY = true
		s.ErrWidth, _, _ = term.GetSize(int(os.Stderr.Fd()))
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
