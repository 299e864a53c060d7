package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/gpuwise/gpuwise/"

// Layer is where a package sits in sources → snapshot → engines → use
// cases → front ends (docs/architecture.md, whose package table names
// the same layers: TestArchitectureTableMatchesTheLayers).
type layer string

const (
	core      layer = "core"      // the model and shared pure helpers
	engine    layer = "engine"    // core packages that compute one result each
	adapter   layer = "adapter"   // convert foreign data to the model
	config    layer = "config"    // decode files into engine settings
	store     layer = "store"     // keep results between runs (the history)
	manifests layer = "manifests" // result values → the files gpuwise writes
	metrics   layer = "metrics"   // result values → the service's metric families
	useCase   layer = "use case"  // app, the service's collector
	frontEnd  layer = "front end"
	lab       layer = "lab"          // gpuwise-lab only
	support   layer = "test support" // imported by tests; also every *test package
	main_     layer = "main"
)

// layers classifies every package by path prefix (a package's
// subpackages inherit it unless listed themselves; a package named
// *test is test support whatever its prefix). A new package must be added
// here: the test refuses an unclassified one.
var layers = map[string]layer{
	"internal/cluster": core, "internal/usage": core, "internal/pricing": core, "internal/nodeprice": core,
	"internal/gpushape": core, "internal/rolling": core, "internal/tally": core, "internal/gpurule": core, "internal/yamldoc": core,
	"internal/param":  core,
	"internal/config": config,
	"internal/cost":   engine, "internal/audit": engine, "internal/inventory": engine, "internal/rightsize": engine, "internal/packing": engine,
	"internal/idlecause": engine, "internal/capacity": engine, "internal/ledger": engine, "internal/compare": engine, "internal/policy": engine, "internal/quota": engine,
	"internal/kueue":   engine,
	"internal/billing": engine, "internal/tracker": engine,
	"internal/kube": adapter, "internal/prom": adapter, "internal/billing/export": adapter, "internal/sim": adapter, "internal/snapshot": adapter, "internal/trace": adapter,
	"internal/history":  store,
	"internal/generate": manifests,
	"internal/exporter": metrics,
	"internal/app":      useCase, "internal/collector": useCase,
	"internal/cli": frontEnd, "internal/render": frontEnd, "internal/progress": frontEnd,
	"internal/serve": frontEnd, "internal/dashboard": frontEnd, "internal/grafana": frontEnd,
	"internal/packbench":  lab,
	"internal/shareddata": support,
	"cmd":                 main_, "hack": main_, "test": main_,
}

// engineExceptions are the engine-to-engine imports that truly compose
// the other engine; each is also written in the importer's doc.go.
var engineExceptions = map[string][]string{
	// the savings ledger: right-sized changes packed onto fewer priced
	// nodes, related to the cost report (docs/savings.md); its levers and
	// its FinOps metrics are its own parts, below it (the levers know
	// neither the ledger nor the metrics; the metrics read the levers'
	// actions and know no ledger)
	"internal/ledger":        {"internal/rightsize", "internal/packing", "internal/cost", "internal/capacity", "internal/ledger/lever", "internal/ledger/finops"},
	"internal/ledger/lever":  {"internal/rightsize", "internal/packing", "internal/capacity"},
	"internal/ledger/finops": {"internal/cost", "internal/ledger/lever"},
	"internal/quota":         {"internal/cost"}, // prices quotas from the cost allocation (cost.Allocation)
	// proof of savings: tracks the ledger's actions and what they realised (docs/progress.md)
	"internal/tracker": {"internal/ledger", "internal/ledger/lever"},
	// sizes ClusterQueues with quota's one sizing rule (quota.Series:
	// percentile + headroom of units requested at once)
	"internal/kueue": {"internal/quota", "internal/cost"},
}

// callsUseCases are the front ends that run use cases: the CLI and the
// service (DESIGN.md: both call the use cases and one rendering layer).
var callsUseCases = map[string]bool{"internal/cli": true, "internal/serve": true}

// forbiddenForCore are what no core package, engine or config decoder may
// reach, even transitively: the network, processes, databases and their
// drivers, Kubernetes and Prometheus clients, the CLI's libraries.
var forbiddenForCore = []string{"net/http", "os/exec", "database/sql", "modernc.org/sqlite", "k8s.io/client-go",
	"github.com/prometheus/client_golang", "github.com/spf13/cobra", "github.com/spf13/pflag"}

// forbiddenImportsForCore are what they may not import themselves (fmt
// reaches os, so only a direct import can be refused): files, the
// environment and the process are the adapters' and the front ends'.
var forbiddenImportsForCore = []string{"os", "io/ioutil", "syscall"}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
	Module     *struct{ Path string }
}

func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	var problems []string
	for _, p := range pkgs {
		problems = append(problems, check(p)...)
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Errorf("import rules broken (docs/architecture.md; exceptions in internal/archtest):\n  %s", strings.Join(problems, "\n  "))
	}
}

// check lists every rule p breaks.
func check(p pkg) []string {
	name := strings.TrimPrefix(p.ImportPath, module)
	l, ok := classify(name)
	if !ok {
		return []string{fmt.Sprintf("%s: not classified; add it to layers in internal/archtest", name)}
	}
	var out []string
	if l == core || l == engine || l == config {
		under := func(d, f string) bool { return d == f || strings.HasPrefix(d, f+"/") }
		for _, f := range forbiddenForCore {
			if slices.ContainsFunc(p.Deps, func(d string) bool { return under(d, f) }) || slices.ContainsFunc(p.Imports, func(d string) bool { return under(d, f) }) {
				out = append(out, fmt.Sprintf("%s (%s) depends on %s", name, l, f))
			}
		}
		for _, f := range forbiddenImportsForCore {
			if slices.ContainsFunc(p.Imports, func(d string) bool { return under(d, f) }) {
				out = append(out, fmt.Sprintf("%s (%s) imports %s: files, the environment and processes belong to adapters and front ends", name, l, f))
			}
		}
	}
	for _, imp := range p.Imports {
		if !strings.HasPrefix(imp, module) {
			continue
		}
		in := strings.TrimPrefix(imp, module)
		il, _ := classify(in)
		if why := forbidden(name, l, in, il); why != "" {
			out = append(out, fmt.Sprintf("%s (%s) imports %s (%s): %s", name, l, in, il, why))
		}
	}
	return out
}

// output layers turn result values into what gpuwise writes (manifests)
// or exports (metric families): use cases and front ends call them.
func output(l layer) bool { return l == manifests || l == metrics }

// forbidden says why a package of layer l may not import one of layer il,
// or "".
func forbidden(name string, l layer, in string, il layer) string {
	switch {
	case il == support && l != support:
		return "test support is for tests"
	case (l == core || l == engine) && il != core && il != engine:
		return "core packages import only core packages"
	case l == core && il == engine:
		return "the model and its helpers know no engine"
	case l == engine && il == engine && !slices.Contains(engineExceptions[name], in):
		return "engines are siblings; a composition belongs in internal/app (or, if it truly composes, in engineExceptions and the importer's doc.go)"
	case (l == adapter || l == config) && il != core && il != engine && il != adapter && il != config:
		return "adapters convert data; they know no store, output, use case or front end"
	case l == store && il != core && il != engine:
		return "a store keeps result values; it knows no source, output, use case or front end"
	case output(l) && il != core && il != engine:
		return "output layers read result values; they know no source, store, use case or front end"
	case l == useCase && il == frontEnd:
		return "use cases return values; front ends render them"
	case l == frontEnd && il == store:
		return "front ends reach stores through the use cases (app.History), which open them"
	case l == frontEnd && !callsUseCases[name] && (il == useCase || il == adapter):
		return "only the CLI and the service call use cases; render, dashboard, grafana and progress read result values"
	case callsUseCases[name] && il == adapter:
		return "front ends reach sources through the use cases (internal/app), which choose them once"
	case callsUseCases[name] && il == engine:
		return "front ends reach engines through the use cases (internal/app), which name the engines' settings for them (app/frontend.go)"
	}
	return ""
}

// classify finds a package's layer: test support when its name ends in
// "test" (clustertest, promtest, wiretest, proctest, archtest), else by
// its longest listed prefix.
func classify(name string) (layer, bool) {
	if base := path.Base(name); len(base) > len("test") && strings.HasSuffix(base, "test") {
		return support, true
	}
	best := ""
	for prefix := range layers {
		if (name == prefix || strings.HasPrefix(name, prefix+"/")) && len(prefix) > len(best) {
			best = prefix
		}
	}
	l, ok := layers[best]
	return l, ok
}

// listPackages runs go list -deps -json over the module and keeps its
// own packages.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list: %v", err)
		}
		if strings.HasPrefix(p.ImportPath, module) {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages of the module, want every one", len(pkgs))
	}
	return pkgs
}

// The exceptions are written where a reader looks: in the importer's
// doc.go, naming the imported engine.
func TestEngineExceptionsAreDocumented(t *testing.T) {
	for importer, imports := range engineExceptions {
		doc, err := os.ReadFile(filepath.Join("..", "..", importer, "doc.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range imports {
			if !strings.Contains(string(doc), filepath.Base(imp)) {
				t.Errorf("%s/doc.go does not name its import of %s", importer, imp)
			}
		}
	}
}

// The rules catch what they are for (a fixture per rule).
func TestRulesCatchBadImports(t *testing.T) {
	tests := []struct {
		name string
		p    pkg
		want string
	}{
		{"engine imports an engine", pkg{ImportPath: module + "internal/cost", Imports: []string{module + "internal/audit"}}, "engines are siblings"},
		// the ledger's parts: the levers below the metrics, both below the ledger
		{"a lever imports the ledger", pkg{ImportPath: module + "internal/ledger/lever", Imports: []string{module + "internal/ledger"}}, "engines are siblings"},
		{"a lever reads the metrics", pkg{ImportPath: module + "internal/ledger/lever", Imports: []string{module + "internal/ledger/finops"}}, "engines are siblings"},
		{"the metrics import the ledger", pkg{ImportPath: module + "internal/ledger/finops", Imports: []string{module + "internal/ledger"}}, "engines are siblings"},
		{"the metrics pack", pkg{ImportPath: module + "internal/ledger/finops", Imports: []string{module + "internal/packing"}}, "engines are siblings"},
		{"core imports an adapter", pkg{ImportPath: module + "internal/cluster", Imports: []string{module + "internal/prom"}}, "core packages import only core packages"},
		{"core reaches the network", pkg{ImportPath: module + "internal/pricing", Deps: []string{"net/http"}}, "depends on net/http"},
		{"engine reaches client-go", pkg{ImportPath: module + "internal/audit", Deps: []string{"k8s.io/client-go/rest"}}, "depends on k8s.io/client-go"},
		{"engine imports the CLI", pkg{ImportPath: module + "internal/rightsize", Imports: []string{module + "internal/cli"}}, "core packages import only core packages"},
		{"render calls a use case", pkg{ImportPath: module + "internal/render", Imports: []string{module + "internal/app"}}, "only the CLI and the service call use cases"},
		{"the service reads a source itself", pkg{ImportPath: module + "internal/serve", Imports: []string{module + "internal/sim"}}, "reach sources through the use cases"},
		{"the CLI names an engine's options itself", pkg{ImportPath: module + "internal/cli", Imports: []string{module + "internal/cost"}}, "reach engines through the use cases"},
		{"the service runs an engine itself", pkg{ImportPath: module + "internal/serve", Imports: []string{module + "internal/ledger"}}, "reach engines through the use cases"},
		{"unclassified package", pkg{ImportPath: module + "internal/newthing"}, "not classified"},
		// the forbidden list for the model and the engines
		{"engine imports os", pkg{ImportPath: module + "internal/cost", Imports: []string{"os"}}, "imports os"},
		{"core imports os/signal", pkg{ImportPath: module + "internal/cluster", Imports: []string{"os/signal"}}, "imports os"},
		{"engine imports net/http itself", pkg{ImportPath: module + "internal/ledger", Imports: []string{"net/http"}}, "depends on net/http"},
		{"engine reaches database/sql", pkg{ImportPath: module + "internal/compare", Deps: []string{"database/sql"}}, "depends on database/sql"},
		{"engine reaches the SQLite driver", pkg{ImportPath: module + "internal/quota", Deps: []string{"modernc.org/sqlite/lib"}}, "depends on modernc.org/sqlite"},
		{"core reaches the Prometheus client", pkg{ImportPath: module + "internal/usage", Deps: []string{"github.com/prometheus/client_golang/prometheus"}}, "depends on github.com/prometheus/client_golang"},
		{"config reaches client-go", pkg{ImportPath: module + "internal/config", Deps: []string{"k8s.io/client-go/kubernetes"}}, "depends on k8s.io/client-go"},
		// the store layer
		{"engine imports the store", pkg{ImportPath: module + "internal/cost", Imports: []string{module + "internal/history"}}, "core packages import only core packages"},
		{"the CLI opens the store", pkg{ImportPath: module + "internal/cli", Imports: []string{module + "internal/history"}}, "reach stores through the use cases"},
		{"the service reads the store itself", pkg{ImportPath: module + "internal/serve", Imports: []string{module + "internal/history"}}, "reach stores through the use cases"},
		{"render reads the store", pkg{ImportPath: module + "internal/render", Imports: []string{module + "internal/history"}}, "reach stores through the use cases"},
		{"an adapter writes the store", pkg{ImportPath: module + "internal/prom", Imports: []string{module + "internal/history"}}, "adapters convert data"},
		{"the store calls a use case", pkg{ImportPath: module + "internal/history", Imports: []string{module + "internal/app"}}, "a store keeps result values"},
		{"the store reads a source", pkg{ImportPath: module + "internal/history", Imports: []string{module + "internal/snapshot"}}, "a store keeps result values"},
		// the output layers: manifests (generate) and metrics (exporter)
		{"generate reads a source", pkg{ImportPath: module + "internal/generate", Imports: []string{module + "internal/kube"}}, "output layers read result values"},
		{"the exporter reads the store", pkg{ImportPath: module + "internal/exporter", Imports: []string{module + "internal/history"}}, "output layers read result values"},
		{"generate calls a use case", pkg{ImportPath: module + "internal/generate", Imports: []string{module + "internal/app"}}, "output layers read result values"},
		{"a use case renders", pkg{ImportPath: module + "internal/app", Imports: []string{module + "internal/render"}}, "use cases return values"},
		{"the collector serves HTTP", pkg{ImportPath: module + "internal/collector", Imports: []string{module + "internal/serve"}}, "use cases return values"},
		{"render runs the collector", pkg{ImportPath: module + "internal/render", Imports: []string{module + "internal/collector"}}, "only the CLI and the service call use cases"},
		// test support by name
		{"an adapter imports its fake", pkg{ImportPath: module + "internal/prom/query", Imports: []string{module + "internal/prom/promtest"}}, "test support is for tests"},
		{"a new fake is test support by its name", pkg{ImportPath: module + "internal/kube", Imports: []string{module + "internal/kube/kubetest"}}, "test support is for tests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(check(tt.p), "\n")
			if !strings.Contains(got, tt.want) {
				t.Errorf("check = %q, want %q", got, tt.want)
			}
		})
	}
	allowed := []pkg{
		{ImportPath: module + "internal/ledger", Imports: []string{module + "internal/rightsize"}}, // the documented exception
		{ImportPath: module + "internal/ledger", Imports: []string{module + "internal/ledger/lever", module + "internal/ledger/finops"}},
		{ImportPath: module + "internal/ledger/finops", Imports: []string{module + "internal/ledger/lever", module + "internal/cost"}},
		// use cases build manifests and metric frames by layer, not by name
		{ImportPath: module + "internal/app", Imports: []string{module + "internal/generate", module + "internal/generate/newkind", module + "internal/history"}},
		{ImportPath: module + "internal/collector", Imports: []string{module + "internal/exporter", module + "internal/app", module + "internal/rolling"}},
		{ImportPath: module + "internal/serve", Imports: []string{module + "internal/collector", module + "internal/exporter", module + "internal/tally"}},
		{ImportPath: module + "internal/history", Imports: []string{module + "internal/cost", module + "internal/tally", "database/sql", "os"}},
		{ImportPath: module + "internal/prom/promtest", Imports: []string{module + "internal/prom/wire", "net/http"}},
	}
	for _, p := range allowed {
		if got := check(p); len(got) != 0 {
			t.Errorf("an allowed import is refused: %v", got)
		}
	}
	for name, want := range map[string]layer{"internal/prom/promtest": support, "internal/prom/wire/wiretest": support, "internal/prom/wire": adapter,
		"internal/archtest": support, "internal/history": store, "internal/ledger/lever": engine, "internal/ledger/finops": engine, "internal/ledger/ledgertest": support, "internal/generate": manifests, "internal/collector": useCase, "test/integration/serve": main_} {
		if got, _ := classify(name); got != want {
			t.Errorf("classify(%s) = %q, want %q", name, got, want)
		}
	}
}

// The package table in docs/architecture.md says what the layers say:
// every classified package has a row, and every row's layer is the one
// the rules check (the mains under hack/ and test/ excepted).
func TestArchitectureTableMatchesTheLayers(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range tableProblems(packageTable(t, string(doc)), listPackages(t)) {
		t.Errorf("docs/architecture.md: %s", problem)
	}
}

// tableProblems compares the table's rows with the packages' layers.
func tableProblems(rows map[string]string, pkgs []pkg) []string {
	rows = maps.Clone(rows)
	var out []string
	for _, p := range pkgs {
		name := strings.TrimPrefix(p.ImportPath, module)
		if strings.HasPrefix(name, "hack/") || strings.HasPrefix(name, "test/") {
			continue
		}
		want, _ := classify(name)
		got, ok := rows[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("no row for %s (%s) in the package table", name, want))
		case got != string(want):
			out = append(out, fmt.Sprintf("%s is %q in the package table, %q in internal/archtest", name, got, want))
		}
		delete(rows, name)
	}
	for name := range rows {
		out = append(out, fmt.Sprintf("the package table names %s, which is not a package", name))
	}
	sort.Strings(out)
	return out
}

// The table check catches a missing row, a wrong layer and a row for no
// package.
func TestTableProblemsCatchDisagreement(t *testing.T) {
	pkgs := []pkg{{ImportPath: module + "internal/cost"}, {ImportPath: module + "internal/history"}, {ImportPath: module + "internal/tally"}}
	rows := map[string]string{"internal/cost": "core", "internal/history": "store", "internal/gone": "engine"}
	got := strings.Join(tableProblems(rows, pkgs), "\n")
	for _, want := range []string{`internal/cost is "core" in the package table, "engine"`, "no row for internal/tally", "names internal/gone, which is not a package"} {
		if !strings.Contains(got, want) {
			t.Errorf("tableProblems = %q, want %q", got, want)
		}
	}
	if got := tableProblems(map[string]string{"internal/cost": "engine"}, pkgs[:1]); len(got) != 0 {
		t.Errorf("an agreeing table is refused: %v", got)
	}
}

// packageTable reads the "## Packages" table: package → layer.
func packageTable(t *testing.T, doc string) map[string]string {
	t.Helper()
	_, sec, ok := strings.Cut(doc, "\n## Packages\n")
	if !ok {
		t.Fatal("docs/architecture.md has no ## Packages section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	rows := map[string]string{}
	for _, line := range strings.Split(sec, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for _, name := range strings.Split(cells[1], ",") {
			rows[strings.Trim(strings.TrimSpace(name), "`")] = strings.TrimSpace(cells[2])
		}
	}
	if len(rows) < 20 {
		t.Fatalf("docs/architecture.md: read %d rows from the package table, want every package", len(rows))
	}
	return rows
}
