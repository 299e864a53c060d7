package grafana_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/gpuwise/gpuwise/internal/exporter"
	"github.com/gpuwise/gpuwise/internal/grafana"
	"github.com/gpuwise/gpuwise/internal/serve"
)

var update = flag.Bool("update", false, "rewrite deploy/grafana/gpuwise.json and the chart's copy")

// The shipped files: the dashboard and the Helm chart's copy for its
// ConfigMap.
var shipped = []string{
	filepath.Join("..", "..", "deploy", "grafana", "gpuwise.json"),
	filepath.Join("..", "..", "deploy", "helm", "gpuwise", "files", "grafana-dashboard.json"),
}

func TestShippedDashboardIsCurrent(t *testing.T) {
	want, err := grafana.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range shipped {
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: go test ./internal/grafana -update", path)
		}
	}
}

// strict decodes raw with the foundation SDK's strict decoder and checks it.
func strict(raw []byte) error {
	plugins.RegisterDefaultPlugins()
	var d dashboard.Dashboard
	if err := sdkErr(d.UnmarshalJSONStrict(raw)); err != nil {
		return err
	}
	return sdkErr(d.Validate())
}

// sdkErr is err, or nil for the SDK's empty error list (it returns a nil
// cog.BuildErrors as a non-nil error).
func sdkErr(err error) error {
	var be cog.BuildErrors
	if errors.As(err, &be) && len(be) == 0 {
		return nil
	}
	return err
}

func TestShippedDashboardDecodesStrictly(t *testing.T) {
	raw, err := os.ReadFile(shipped[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := strict(raw); err != nil {
		t.Fatalf("the SDK's strict decoder refuses %s: %v", shipped[0], err)
	}
	// The decoder is strict: the same file with an unknown panel option or
	// dashboard field is refused (a bad twin of the good file).
	for _, bad := range []struct{ from, to string }{
		{`"graphMode": "area"`, `"graphMode": "area", "graphModee": "area"`},
		{`"uid": "gpuwise-overview"`, `"uid": "gpuwise-overview", "refreshh": "5m"`},
	} {
		mutated := strings.Replace(string(raw), bad.from, bad.to, 1)
		if mutated == string(raw) {
			t.Fatalf("%q not in the dashboard", bad.from)
		}
		if err := strict([]byte(mutated)); err == nil {
			t.Errorf("strict decoding accepted %s", bad.to)
		}
	}
}

// Every query reads metrics the service exports, filtered by the
// dashboard's variables.
func TestQueriesReadExportedMetrics(t *testing.T) {
	raw, err := grafana.JSON()
	if err != nil {
		t.Fatal(err)
	}
	qs, err := grafana.Queries(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 18 {
		t.Fatalf("%d queries", len(qs))
	}
	known := map[string]bool{}
	for _, m := range append(append([]*exporter.Metric{}, exporter.Families...), serve.SelfMetrics...) {
		known[m.Name] = true
	}
	metric := regexp.MustCompile(`\bgpuwise_[a-z_]+`)
	for _, q := range qs {
		names := metric.FindAllString(q.Expr, -1)
		if len(names) == 0 {
			t.Errorf("%s: %s reads no gpuwise metric", q.Where, q.Expr)
		}
		for _, n := range names {
			if !known[n] {
				t.Errorf("%s reads %s, which gpuwise does not export", q.Where, n)
			}
		}
		if strings.HasPrefix(q.Where, "panel") && !strings.Contains(q.Expr, `cluster=~"$cluster"`) {
			t.Errorf("%s: %s ignores the cluster variable", q.Where, q.Expr)
		}
	}
}
