package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestProgramName(t *testing.T) {
	tests := []struct{ argv0, want string }{
		{"/usr/local/bin/gpuwise", "gpuwise"},
		{"gpuwise", "gpuwise"},
		{"/home/me/.krew/bin/kubectl-gpuwise", "kubectl gpuwise"},
		{"kubectl-gpuwise.exe", "kubectl gpuwise"},
		{"kubectl-gpu_wise", "kubectl gpu-wise"},
		{"kubectl-gpu-wise", "kubectl gpu wise"},
		{"./gw", "gw"},
		{"kubectl-", "kubectl-"},
		{"", "gpuwise"},
	}
	for _, tt := range tests {
		if got := ProgramName(tt.argv0); got != tt.want {
			t.Errorf("ProgramName(%q) = %q, want %q", tt.argv0, got, tt.want)
		}
	}
}

// commandPaths are every command's path below the root.
var commandPaths = [][]string{{}, {"demo"}, {"report"}, {"audit"}, {"collect"}, {"plan"}, {"inventory"}, {"advise"},
	{"recommend"}, {"generate"}, {"generate", "resources"}, {"generate", "plan"}}

// staleName finds the default name where a command of the tree is meant.
var staleName = regexp.MustCompile(`gpuwise (demo|report|audit|collect|plan|inventory|advise|recommend|generate)\b`)

// Called as kubectl-gpuwise, every help page, usage line and flag
// description says "kubectl gpuwise …", never a bare "gpuwise report".
func TestHelpUsesTheInvokedName(t *testing.T) {
	for _, path := range commandPaths {
		t.Run(strings.Join(append([]string{"root"}, path...), " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Execute(append(path, "--help"), Streams{Out: &out, Err: &errb, Name: "kubectl gpuwise"})
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			help := out.String()
			want := "kubectl gpuwise " + strings.Join(path, " ")
			if !strings.Contains(help, "Usage:\n  "+strings.TrimSpace(want)) {
				t.Errorf("usage line does not start with %q:\n%s", want, help)
			}
			if stale := staleName.FindAllString(strings.ReplaceAll(help, "kubectl gpuwise", "KG"), -1); len(stale) > 0 {
				t.Errorf("help still says %q:\n%s", stale, help)
			}
		})
	}
}

// Errors name the invoked command too: the prefix and the hints in them.
func TestErrorsUseTheInvokedName(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"nosuch"}, `kubectl gpuwise: unknown command "nosuch" for kubectl gpuwise (see kubectl gpuwise --help)`},
		{[]string{"report", "stray"}, `kubectl gpuwise: kubectl gpuwise report takes no arguments, got "stray" (see kubectl gpuwise report --help)`},
		{[]string{"generate", "nosuch"}, `kubectl gpuwise: unknown command "nosuch" for kubectl gpuwise generate`},
		{[]string{"report", "--bogus"}, "kubectl gpuwise: unknown flag: --bogus"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := Execute(tt.args, Streams{Out: &out, Err: &errb, Name: "kubectl gpuwise"}); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d", tt.args, code, ExitUsage)
		}
		if !strings.HasPrefix(errb.String(), tt.want) {
			t.Errorf("%q: stderr %q, want it to start with %q", tt.args, errb.String(), tt.want)
		}
	}
}

// Called as gpuwise (or with no name), nothing changes.
func TestDefaultNameIsGpuwise(t *testing.T) {
	out, _, code := run(t, "report", "--help")
	if code != ExitOK || !strings.Contains(out, "Usage:\n  gpuwise report [") || strings.Contains(out, "kubectl") {
		t.Errorf("exit %d, help:\n%s", code, out)
	}
	_, errOut, _ := run(t, "nosuch")
	if !strings.HasPrefix(errOut, "gpuwise: unknown command") {
		t.Errorf("stderr %q", errOut)
	}
}

// The report's savings line points at the invoked command.
func TestReportPointsAtTheInvokedCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Execute([]string{"demo"}, Streams{Out: &out, Err: &errb, Name: "kubectl gpuwise"}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "kubectl gpuwise advise") {
		t.Errorf("report does not point at `kubectl gpuwise advise`:\n%s", out.String())
	}
}
