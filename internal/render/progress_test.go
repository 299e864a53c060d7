package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/tracker"
)

// The red flags are in every format: a firing flag with the action it
// blames and its advice, one without data said so (CSV: the action's
// red_flags column).
func TestProgressShowsRedFlags(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)
	p := &tracker.Plan{Cluster: "c", Updated: at.Add(72 * time.Hour), Observations: 2,
		Actions: []*tracker.Action{{ID: "rightsize-aaaaaa", Lever: "rightsize", Kind: "resize", Title: "Right-size chat", Status: tracker.Applied, AppliedAt: at}}}
	v := 15.0
	pf := &tracker.Proof{Flags: []tracker.Flag{
		{Name: tracker.FlagOOMKillsUp, Action: "rightsize-aaaaaa", Status: tracker.Firing, Since: at, Value: &v, Detail: "15 OOM kills an hour", Advice: "add 10–20 % memory"},
		{Name: tracker.FlagLatencyUp, Action: "rightsize-aaaaaa", Status: tracker.NoData, Since: at, Detail: "no latency metrics"},
	}}
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Progress(&b, ProgressInput{Cluster: "c", Source: "test", Plan: p, Proof: pf}, f, Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out := b.String()
		want := []string{"oom_kills_up", "latency_up"}
		switch f {
		case CSV:
			want = append(want, "red_flags", "oom_kills_up=firing;latency_up=no-data")
		case JSON, YAML:
			want = append(want, "red_flags", "add 10–20 % memory", "no latency metrics")
		default:
			want = append(want, "FIRING oom_kills_up (blames rightsize-aaaaaa", "add 10–20 % memory", "not watched: rightsize-aaaaaa latency_up: no latency metrics")
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("-o %s lacks %q:\n%s", f, w, out)
			}
		}
	}
}
