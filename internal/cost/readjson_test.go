package cost

import (
	"strings"
	"testing"
)

const readJSONHead = `{"window":{"start":"2026-11-01T00:00:00Z","end":"2026-11-08T00:00:00Z"},"by":"namespace",`

// A report's JSON with the objects the renderer writes beside it (kueue,
// reconciliation) and rows' allocation mechanisms reads back; a mechanism
// no report writes, or one listed twice, is named.
func TestParseReportJSONReadsMechanismsAndKueue(t *testing.T) {
	t.Parallel()
	ok := readJSONHead + `"rows":[{"key":"ml","pods":2,"gpu_hours":{"allocated":10,"active":4,"idle":6},"total_cost_usd":30,` +
		`"mechanisms":["device-plugin","mig","kueue-admitted"]}],"kueue":{"window_hours":168,"queues":[]},"reconciliation":{"bill_usd":1}}`
	r, err := ParseReportJSON([]byte(ok))
	if err != nil {
		t.Fatalf("a report with kueue and mechanisms: %v", err)
	}
	if got := strings.Join(r.Rows[0].Mechanisms, "+"); got != "device-plugin+mig+kueue-admitted" {
		t.Errorf("mechanisms read back as %q", got)
	}
	for name, tc := range map[string]struct{ mechanisms, want string }{
		"unknown":      {`["device-plugin","nvlink"]`, `"nvlink" is not one of`},
		"listed twice": {`["mig","mig"]`, `"mig" listed twice or out of order`},
		"out of order": {`["dra","mig"]`, `"mig" listed twice or out of order`},
	} {
		b := readJSONHead + `"rows":[{"key":"ml","pods":1,"gpu_hours":{"allocated":1},"mechanisms":` + tc.mechanisms + `}]}`
		_, err := ParseReportJSON([]byte(b))
		if err == nil || !strings.Contains(err.Error(), `rows[0] ("ml"): mechanisms: `+tc.want) {
			t.Errorf("%s: error %v, want one naming %s", name, err, tc.want)
		}
	}
}
