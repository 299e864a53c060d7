package serve_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/exporter"
	"github.com/gpuwise/gpuwise/internal/serve"
)

// rulesFile is the plain rules file; the chart ships an identical copy.
var rulesFile = filepath.Join("..", "..", "deploy", "rules", "gpuwise.rules.yaml")

// The alert rules (deploy/rules, promtool-tested by make integration-rules)
// read only metrics the service exports, with label values it emits: a
// renamed metric or label breaks this test, not the alerts in production.
func TestAlertRulesReadExportedMetrics(t *testing.T) {
	t.Parallel()
	rules, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, m := range append(append([]*exporter.Metric{}, exporter.Families...), serve.SelfMetrics...) {
		known[m.Name] = true
	}
	metrics := string(mustGet(t, demo(t), "/metrics"))
	uses := regexp.MustCompile(`\b(gpuwise_[a-z_]+)(\{[^}]*\})?`).FindAllStringSubmatch(string(rules), -1)
	if len(uses) < 15 {
		t.Fatalf("found %d metric uses in %s", len(uses), rulesFile)
	}
	for _, u := range uses {
		name := u[1]
		if !known[name] {
			t.Errorf("%s reads %s, which gpuwise does not export", rulesFile, name)
			continue
		}
		for _, eq := range regexp.MustCompile(`([a-z_]+)="([^"]*)"`).FindAllStringSubmatch(u[2], -1) {
			if eq[1] == "flag" && strings.HasPrefix(name, "gpuwise_plan_red_flag") {
				// the demo applies no action, so it watches no flag: the
				// values are the tracker's
				if !slices.Contains(app.RedFlagNames, eq[2]) {
					t.Errorf("%s: %s{flag=%q}: no such red flag (want one of %v)", rulesFile, name, eq[2], app.RedFlagNames)
				}
				continue
			}
			if !hasSeries(metrics, name, eq[1]+`="`+eq[2]+`"`) {
				t.Errorf("%s: %s{%s=%q} matches no series the demo exports", rulesFile, name, eq[1], eq[2])
			}
		}
	}
}

func hasSeries(metrics, name, label string) bool {
	for _, l := range strings.Split(metrics, "\n") {
		if strings.HasPrefix(l, name+"{") && strings.Contains(l, label) {
			return true
		}
	}
	return false
}

// The chart's PrometheusRule is made from its copy of the rules file.
func TestChartRulesAreThePlainRules(t *testing.T) {
	t.Parallel()
	plain, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	chart, err := os.ReadFile(filepath.Join("..", "..", "deploy", "helm", "gpuwise", "files", "gpuwise.rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain, chart) {
		t.Errorf("deploy/helm/gpuwise/files/gpuwise.rules.yaml differs from %s: cp %s deploy/helm/gpuwise/files/", rulesFile, rulesFile)
	}
}
