package render

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// One document model (issue 24.10): every human format is written by the
// doc's own writers (document*.go), and no other file of render builds a
// second document — a page type holding a sequence of the model's parts, its
// own HTML template, or a human-format writer that is not a doc's.
//
// knownBypasses are the writers that still write a format themselves; the
// test fails on a new one and on one that is gone (so the list only
// shrinks). Each is "<function>/<format>".
var knownBypasses = map[string]string{
	"BillInspection/Table":    "bill inspect's provider and instance tables",
	"Ledger/HTML":             "the savings ledger's page (ledger.html.tmpl: cards and a before/after bar)",
	"ClusterLedgers/Table":    "each cluster's ledger document under a heading, then the sum",
	"ClusterLedgers/Wide":     "as Table",
	"ClusterLedgers/Markdown": "as Table",
}

// knownPageTypes are the types outside document*.go that hold a sequence
// of document parts, and why.
var knownPageTypes = map[string]string{
	"ledgerView": "the savings ledger's page model (Ledger/HTML above)",
}

// knownTemplates are the files outside document*.go that parse an HTML
// template.
var knownTemplates = map[string]string{
	"ledger_html.go": "the savings ledger's page (Ledger/HTML above)",
}

func TestOneDocumentModel(t *testing.T) {
	t.Parallel()
	files := parsePackage(t)
	var bypasses, pages, templates []string
	for name, f := range files {
		if isModelFile(name) {
			continue
		}
		bypasses = append(bypasses, formatBypasses(f)...)
		pages = append(pages, pageTypes(f)...)
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "html/template" || p == "text/template" {
				templates = append(templates, name)
			}
		}
	}
	checkKnown(t, "writes a human format without the doc", bypasses, knownBypasses)
	checkKnown(t, "is a second document type (holds a sequence of document parts)", pages, knownPageTypes)
	checkKnown(t, "parses its own template", templates, knownTemplates)
	for name, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !docWriterNames[fn.Name.Name] {
				continue
			}
			if recv := exprString(fn.Recv.List[0].Type); recv != "*doc" {
				t.Errorf("%s: %s.%s: only the doc has a %s", name, recv, fn.Name.Name, fn.Name.Name)
			}
		}
	}
	if _, ok := files["format.go"]; !ok {
		t.Fatal("format.go (the report's writers) not read: the test reads the wrong directory")
	}
}

// The test must catch what it looks for: a report written by a function
// of its own, a page type of grids, and a template of its own.
func TestOneDocumentModelCatchesASecondModel(t *testing.T) {
	t.Parallel()
	const planted = `package render
import "html/template"
var page = template.Must(template.New("p").Parse(""))
type reportPage struct { Title string; Grids []grid }
func Report(w io.Writer, r *cost.Report, f Format, o Options) error {
	return write(w, "report", f, o, writers{
		Table:    reportDoc(r, o, Table).writeText,
		Markdown: func(w io.Writer) error { return writeMarkdown(w, r, o) },
		HTML:     func(w io.Writer) error { d := reportDoc(r, o, HTML); return d.writeHTML(w) },
	})
}`
	f, err := parser.ParseFile(token.NewFileSet(), "planted.go", planted, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := formatBypasses(f), []string{"Report/Markdown"}; !slices.Equal(got, want) {
		t.Errorf("bypasses = %v, want %v", got, want)
	}
	if got, want := pageTypes(f), []string{"reportPage"}; !slices.Equal(got, want) {
		t.Errorf("page types = %v, want %v", got, want)
	}
}

func parsePackage(t *testing.T) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	fset := token.NewFileSet()
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = f
	}
	return files
}

// isModelFile says whether a file is the document model itself.
func isModelFile(name string) bool { return strings.HasPrefix(name, "document") }

var docWriterNames = map[string]bool{"writeText": true, "writeMarkdown": true, "writeHTML": true}

var humanFormats = map[string]bool{"Table": true, "Wide": true, "Markdown": true, "HTML": true}

// formatBypasses are "<function>/<format>" for every human-format entry of
// a writers literal that is not a doc's writer: a method value
// d.writeText, or a func literal whose last statement returns a call of one.
func formatBypasses(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || exprString(lit.Type) != "writers" {
				return true
			}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				key := exprString(kv.Key)
				if humanFormats[key] && !isDocWriter(kv.Value) {
					out = append(out, fn.Name.Name+"/"+key)
				}
			}
			return true
		})
	}
	sort.Strings(out)
	return out
}

func isDocWriter(e ast.Expr) bool {
	switch v := e.(type) {
	case *ast.SelectorExpr:
		return docWriterNames[v.Sel.Name]
	case *ast.FuncLit:
		stmts := v.Body.List
		if len(stmts) == 0 {
			return false
		}
		ret, ok := stmts[len(stmts)-1].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return false
		}
		call, ok := ret.Results[0].(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		return ok && docWriterNames[sel.Sel.Name]
	}
	return false
}

// modelParts are the types a document is made of.
var modelParts = map[string]bool{"block": true, "fact": true, "note": true, "grid": true, "gridRow": true, "column": true, "bar": true}

// pageTypes are the struct types that hold a sequence of document parts
// (a slice of them, or a grid): a document of their own.
func pageTypes(f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return true
		}
		for _, fld := range st.Fields.List {
			ty := exprString(fld.Type)
			if arr, ok := fld.Type.(*ast.ArrayType); ok && modelParts[strings.TrimPrefix(exprString(arr.Elt), "*")] ||
				strings.TrimPrefix(ty, "*") == "grid" {
				out = append(out, ts.Name.Name)
				break
			}
		}
		return true
	})
	return out
}

func exprString(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.Ident:
		return v.Name
	case *ast.StarExpr:
		return "*" + exprString(v.X)
	case *ast.SelectorExpr:
		return exprString(v.X) + "." + v.Sel.Name
	case *ast.ArrayType:
		return "[]" + exprString(v.Elt)
	}
	return ""
}

// checkKnown fails on every item not in known, and on every known one not
// found (it has moved onto the model: drop it from the list).
func checkKnown(t *testing.T, what string, got []string, known map[string]string) {
	t.Helper()
	seen := map[string]bool{}
	for _, g := range got {
		seen[g] = true
		if _, ok := known[g]; !ok {
			t.Errorf("%s %s: build it as a doc (document.go) instead", g, what)
		}
	}
	for k := range known {
		if !seen[k] {
			t.Errorf("%s no longer %s: remove it from the test's known list", k, what)
		}
	}
}
