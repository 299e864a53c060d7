package generate

import (
	"fmt"
	"strings"
	"time"
)

// The wave history is what apply.sh and rollback.sh append to
// rollout/history.tsv (or $GPUWISE_WAVE_HISTORY) after each kubectl patch:
// one line per workload, tab-separated: the UTC time (RFC 3339), the
// event ("applied" or "rolled-back"), the wave ("wave-01") and the
// workload ("namespace/Kind/name"). `generate resources --wave-history
// FILE` leaves the workloads whose last event is "applied" out of the new
// waves.

// Wave history events.
const (
	historyApplied    = "applied"
	historyRolledBack = "rolled-back"
)

// ParseWaveHistory reads a wave history: per workload whose last event is
// "applied", when and in which wave. Every bad line is listed in one
// error, with its line number; blank lines and # comments are skipped.
func ParseWaveHistory(name string, data []byte) (map[string]string, error) {
	var p problems
	out := map[string]string{}
	n := 0
	for line := range strings.Lines(string(data)) {
		n++
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			p.addf("%s line %d: %d tab-separated fields, want 4 (time, event, wave, workload)", name, n, len(f))
			continue
		}
		at, err := time.Parse(time.RFC3339, f[0])
		if err != nil {
			p.addf("%s line %d: time %q is not RFC 3339 (2026-12-02T14:00:00Z)", name, n, f[0])
		}
		if strings.Count(f[3], "/") != 2 {
			p.addf("%s line %d: workload %q is not namespace/Kind/name", name, n, f[3])
		}
		switch f[1] {
		case historyApplied:
			out[f[3]] = fmt.Sprintf("applied in %s at %s (wave history)", f[2], at.UTC().Format(time.RFC3339))
		case historyRolledBack:
			delete(out, f[3])
		default:
			p.addf("%s line %d: event %q, want %s or %s", name, n, f[1], historyApplied, historyRolledBack)
		}
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// historyHelpers are the shell lines apply.sh and rollback.sh use to
// append to the wave history.
const historyHelpers = `HISTORY=${GPUWISE_WAVE_HISTORY:-rollout/history.tsv}
record() { printf '%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" "$2" "$3" >>"$HISTORY"; }
`
