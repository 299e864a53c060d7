package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/gpuwise/gpuwise/"

// Layer is where a package sits in sources → snapshot → engines → use
// cases → front ends (docs/architecture.md).
type layer string

const (
	core     layer = "core"     // the model and shared pure helpers
	engine   layer = "engine"   // core packages that compute one result each
	adapter  layer = "adapter"  // convert foreign data to the model
	config   layer = "config"   // decode files into engine settings
	useCase  layer = "use case" // app
	frontEnd layer = "front end"
	lab      layer = "lab"          // gpuwise-lab only
	support  layer = "test support" // imported by tests
	main_    layer = "main"
)

// layers classifies every package by path prefix (a package's
// subpackages inherit it unless listed themselves). A new package must be
// added here: the test refuses an unclassified one.
var layers = map[string]layer{
	"internal/cluster": core, "internal/usage": core, "internal/pricing": core, "internal/nodeprice": core,
	"internal/gpushape": core, "internal/gpurule": core, "internal/config": config, "internal/rolling": core,
	"internal/cost": engine, "internal/billing": engine, "internal/audit": engine, "internal/inventory": engine, "internal/rightsize": engine, "internal/packing": engine,
	"internal/idlecause": engine, "internal/capacity": engine, "internal/ledger": engine, "internal/compare": engine, "internal/policy": engine, "internal/quota": engine,
	"internal/kube": adapter, "internal/prom": adapter, "internal/billing/export": adapter, "internal/sim": adapter, "internal/snapshot": adapter, "internal/trace": adapter,
	"internal/app": useCase,
	"internal/cli": frontEnd, "internal/render": frontEnd, "internal/generate": frontEnd, "internal/progress": frontEnd,
	"internal/serve": frontEnd, "internal/exporter": frontEnd, "internal/history": frontEnd, "internal/dashboard": frontEnd, "internal/grafana": frontEnd,
	"internal/packbench":           lab,
	"internal/cluster/clustertest": support, "internal/billing/billingtest": support, "internal/proctest": support, "internal/shareddata": support, "internal/archtest": support,
	"cmd": main_, "hack": main_, "test": main_,
}

// engineExceptions are the engine-to-engine imports that truly compose
// the other engine; each is also written in the importer's doc.go.
var engineExceptions = map[string][]string{
	// the savings ledger: right-sized changes packed onto fewer priced
	// nodes, related to the cost report (docs/savings.md)
	"internal/ledger": {"internal/rightsize", "internal/packing", "internal/cost", "internal/capacity"},
	"internal/quota":  {"internal/cost"}, // prices quotas from the cost allocation (cost.Allocation)
}

// callsUseCases are the front ends that run use cases: the CLI and the
// service (DESIGN.md: both call the use cases and one rendering layer).
var callsUseCases = map[string]bool{"internal/cli": true, "internal/serve": true}

// forbiddenForCore are what no core package or engine may reach, even
// transitively: the network, processes, Kubernetes clients, the CLI.
var forbiddenForCore = []string{"net/http", "os/exec", "k8s.io/client-go", "github.com/spf13/cobra", "github.com/spf13/pflag"}

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
		for _, f := range forbiddenForCore {
			if slices.ContainsFunc(p.Deps, func(d string) bool { return d == f || strings.HasPrefix(d, f+"/") }) {
				out = append(out, fmt.Sprintf("%s (%s) depends on %s", name, l, f))
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

// forbidden says why a package of layer l may not import one of layer il,
// or "".
func forbidden(name string, l layer, in string, il layer) string {
	switch {
	case (l == core || l == engine) && (il == adapter || il == config || il == useCase || il == frontEnd || il == lab):
		return "core packages import only core packages"
	case l == core && il == engine:
		return "the model and its helpers know no engine"
	case l == engine && il == engine && !slices.Contains(engineExceptions[name], in):
		return "engines are siblings; a composition belongs in internal/app (or, if it truly composes, in engineExceptions and the importer's doc.go)"
	case (l == adapter || l == config) && (il == useCase || il == frontEnd):
		return "adapters convert data; they know no use case or front end"
	case l == useCase && il == frontEnd && in != "internal/generate":
		return "use cases return values; front ends render them"
	case l == frontEnd && !callsUseCases[name] && (il == useCase || il == adapter):
		return "only the CLI and the service call use cases; render, generate, exporter and history read result values"
	case callsUseCases[name] && il == adapter:
		return "front ends reach sources through the use cases (internal/app), which choose them once"
	case il == support && l != support:
		return "test support is for tests"
	}
	return ""
}

// classify finds a package's layer by its longest listed prefix.
func classify(name string) (layer, bool) {
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
		{"core imports an adapter", pkg{ImportPath: module + "internal/cluster", Imports: []string{module + "internal/prom"}}, "core packages import only core packages"},
		{"core reaches the network", pkg{ImportPath: module + "internal/pricing", Deps: []string{"net/http"}}, "depends on net/http"},
		{"engine reaches client-go", pkg{ImportPath: module + "internal/audit", Deps: []string{"k8s.io/client-go/rest"}}, "depends on k8s.io/client-go"},
		{"engine imports the CLI", pkg{ImportPath: module + "internal/rightsize", Imports: []string{module + "internal/cli"}}, "core packages import only core packages"},
		{"render calls a use case", pkg{ImportPath: module + "internal/render", Imports: []string{module + "internal/app"}}, "only the CLI and the service call use cases"},
		{"the service reads a source itself", pkg{ImportPath: module + "internal/serve", Imports: []string{module + "internal/sim"}}, "reach sources through the use cases"},
		{"unclassified package", pkg{ImportPath: module + "internal/newthing"}, "not classified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(check(tt.p), "\n")
			if !strings.Contains(got, tt.want) {
				t.Errorf("check = %q, want %q", got, tt.want)
			}
		})
	}
	if got := check(pkg{ImportPath: module + "internal/ledger", Imports: []string{module + "internal/rightsize"}}); len(got) != 0 {
		t.Errorf("the documented exception is refused: %v", got)
	}
}
