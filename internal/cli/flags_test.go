package cli

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"strings"
	"testing"
)

// Numeric flags out of range are usage errors (exit 2) naming the limit,
// never a silent default, a zero-length window or a crash (issue 16 item 9).
func TestBadNumericFlagsNameTheLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"demo", "--idle-threshold", "NaN"}, "idle threshold: NaN is outside [0, 1]"},
		{[]string{"demo", "--idle-threshold", "-0.1"}, "idle threshold: -0.1 is outside [0, 1]"},
		{[]string{"demo", "--window", "1e-30d"}, `window: "1e-30d" is shorter than the minimum, 1h`},
		{[]string{"demo", "--window", "NaNd"}, `window: "NaNd" is not a positive number of days`},
		{[]string{"demo", "--window", "Infd"}, `window: "Infd" is not a positive number of days`},
		{[]string{"demo", "--window", "1e300d"}, `window: "1e300d" is longer than the maximum, 366d`},
		{[]string{"demo", "--window", "300000d"}, `window: "300000d" is longer than the maximum, 366d`},
		{[]string{"demo", "--window", "1ns"}, `window: "1ns" is shorter than the minimum, 1h`},
		{[]string{"report", "--prometheus", "http://127.0.0.1:1", "--window", "1e300d"}, "is longer than the maximum"},
		{[]string{"recommend", "--demo", "--window", "0.00001d"}, "is shorter than the minimum"},
		{[]string{"collect", "-o", "x.json.gz", "--window", "400d"}, "is longer than the maximum"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			_, errOut, code := run(t, tt.args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, ExitUsage, tt.wantErr)
			}
		})
	}
}

// A flag for the live cluster beside --from or --demo cannot be honoured:
// it is a usage error naming the flags, never silently ignored.
func TestKubeFlagsBesideAFileOrTheDemoAreUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"report", "--demo", "--context", "prod"}, "--context: for a live cluster, which --from and --demo do not read"},
		{[]string{"advise", "--from", "x.snap", "--kubeconfig", "k.yaml", "--context", "prod"}, "--kubeconfig, --context: for a live cluster"},
		{[]string{"audit", "--demo", "--request-timeout", "5s"}, "--request-timeout: for a live cluster"},
		{[]string{"serve", "--demo", "--context", "prod"}, "--context: for a live cluster, which serve --demo does not read"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			_, errOut, code := run(t, tt.args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, ExitUsage, tt.wantErr)
			}
		})
	}
	if _, errOut, code := run(t, "report", "--demo"); code != ExitOK {
		t.Errorf("report --demo without kube flags: exit %d, %s", code, errOut)
	}
}

// Unknown commands and stray arguments are usage errors (exit 2), not
// bugs (issue 16 item 15).
func TestUnknownCommandsAndArgumentsAreUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"foo"}, `unknown command "foo" for gpuwise`},
		{[]string{"report", "extra"}, `gpuwise report takes no arguments, got "extra"`},
		{[]string{"demo", "a", "b"}, `gpuwise demo takes no arguments, got "a b"`},
		{[]string{"generate", "nope"}, `unknown command "nope" for gpuwise generate`},
		{[]string{"generate", "mig", "--demo", "x"}, "gpuwise generate mig takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			_, errOut, code := run(t, tt.args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, ExitUsage, tt.wantErr)
			}
		})
	}
	for _, args := range [][]string{nil, {"generate"}} {
		out, _, code := run(t, args...)
		if code != ExitOK || !strings.Contains(out, "Available Commands") {
			t.Errorf("%v: exit %d, want help: %s", args, code, out)
		}
	}
}

// Help text shows each flag's argument as a placeholder: pflag takes a
// `quoted` word in a usage string as the argument's name, so a usage
// quoting a command made `--demo gpuwise demo` appear as if the boolean
// took one (issue 16 item 23).
func TestHelpShowsNoCommandAsAFlagArgument(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if strings.Contains(name, " ") || (f.Value.Type() == "bool" && name != "") {
				t.Errorf("%s --%s shows its argument as %q", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(Streams{Out: io.Discard, Err: io.Discard}))
	out, _, _ := run(t, "recommend", "--help")
	if strings.Contains(out, "--demo gpuwise") {
		t.Errorf("recommend --help:\n%s", out)
	}
}
