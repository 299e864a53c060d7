package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The recommendations summary is one headline line in every human format
// and one JSON object; without it the report is unchanged.
func TestRecommendationsSummary(t *testing.T) {
	t.Parallel()
	rec := &Recommendations{MonthlySavingsUSD: 12345.67, Count: 9, Unpriced: 2, Skipped: 1, Command: "gpuwise recommend"}
	for _, f := range []Format{Table, Markdown, HTML} {
		var b bytes.Buffer
		if err := Report(&b, sampleReport(), f, Options{Recommendations: rec}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(b.String(), "$12,346/month"); got != 1 {
			t.Errorf("%s: the saving appears %d times, want once:\n%s", f, got, b.String())
		}
		if !strings.Contains(b.String(), "gpuwise recommend") {
			t.Errorf("%s: no pointer to gpuwise recommend", f)
		}
	}
	var b bytes.Buffer
	if err := Report(&b, sampleReport(), JSON, Options{Recommendations: rec}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if string(doc["recommendations"]) == "" || doc["totals"] == nil {
		t.Errorf("json lacks recommendations or the report fields: %s", b.String())
	}
	b.Reset()
	if err := Report(&b, sampleReport(), JSON, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "recommendations") {
		t.Error("json has a recommendations field without a summary")
	}
}
