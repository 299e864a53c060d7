package cli

import (
	"bytes"
	"strings"
	"testing"
)

// With stderr on a terminal the bar draws while the command computes and
// is finished, with its final line, before the result is written: on a
// terminal showing both streams, the report starts on a clean line and
// no status line is drawn after it.
func TestProgressStopsBeforeTheResult(t *testing.T) {
	var both bytes.Buffer
	s := Streams{Out: &both, Err: &both, ErrIsTTY: true, ErrWidth: 100}
	if code := Execute([]string{"inventory", "--demo", "--progress-delay", "0"}, s); code != ExitOK {
		t.Fatalf("exit %d: %s", code, both.String())
	}
	out := both.String()
	start := strings.Index(out, "At 2026-")
	if start < 0 {
		t.Fatalf("no inventory in %q", out)
	}
	progress, result := out[:start], out[start:]
	if !strings.Contains(progress, "\rgpuwise: taking inventory") || !strings.HasSuffix(progress, "\x1b[K\n") {
		t.Errorf("progress before the result %q: want the phases, ending with a final line", progress)
	}
	if strings.Contains(result, "\r") {
		t.Errorf("a status line was drawn after the result began: %q", result)
	}
}

func TestNoProgressWhenPipedOrQuiet(t *testing.T) {
	tests := []struct {
		name string
		tty  bool
		args []string
	}{
		{"stderr piped", false, nil},
		{"--quiet on a terminal", true, []string{"--quiet"}},
		{"-q on a terminal", true, []string{"-q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"plan", "--demo", "--progress-delay", "0", "-o", "json"}, tt.args...)
			if code := Execute(args, Streams{Out: &out, Err: &errb, ErrIsTTY: tt.tty}); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if errb.Len() != 0 {
				t.Errorf("stderr %q, want nothing", errb.String())
			}
		})
	}
}

// Help draws nothing, even on a terminal.
func TestHelpDrawsNoProgress(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Execute([]string{"report", "--help", "--progress-delay", "0"}, Streams{Out: &out, Err: &errb, ErrIsTTY: true}); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if errb.Len() != 0 || strings.Contains(out.String(), "progress-delay") {
		t.Errorf("stderr %q; help shows the hidden flag: %v", errb.String(), strings.Contains(out.String(), "progress-delay"))
	}
}

// Every generate subcommand reports progress through the App in use when
// it runs (one bound at construction would miss the progress bar).
func TestGenerateDrawsProgress(t *testing.T) {
	for _, sub := range []string{"resources", "mig", "autoscaling", "reclaim"} {
		t.Run(sub, func(t *testing.T) {
			var out, errb bytes.Buffer
			s := Streams{Out: &out, Err: &errb, ErrIsTTY: true, ErrWidth: 100}
			if code := Execute([]string{"generate", sub, "--demo", "--progress-delay", "0"}, s); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if !strings.Contains(errb.String(), "\rgpuwise: simulating cluster") {
				t.Errorf("stderr %q: want the progress bar's phases", errb.String())
			}
		})
	}
}
