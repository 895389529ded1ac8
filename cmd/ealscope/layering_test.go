package main

// The layering rules of docs/DOMAINS.md and the project's conventions, checked mechanically
// over the source tree: which package may import which (tests included), the one place that
// builds model clients, no type assertion to the concrete workspace store outside runs, and
// no issue numbers or citations of documents a contributor does not have.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/ealscope/ealscope"

// repoRoot is the repository this test file sits in (cmd/ealscope).
const repoRoot = "../.."

// layerOf is a package's layer, by its path in the repository: a package may import its own
// layer or a lower one. replay and runs are peers; replay/workbench, the application layer
// that joins them, sits above both.
func layerOf(rel string) int {
	switch {
	case rel == "replay/workbench" || strings.HasPrefix(rel, "replay/workbench/"):
		return 4
	case strings.HasPrefix(rel, "cmd/"):
		return 6
	case rel == "tui" || strings.HasPrefix(rel, "tui/"):
		return 5
	case rel == "replay" || strings.HasPrefix(rel, "replay/"), rel == "runs" || strings.HasPrefix(rel, "runs/"):
		return 3
	case rel == "domains" || strings.HasPrefix(rel, "domains/"):
		return 2
	case rel == "engine" || strings.HasPrefix(rel, "engine/"):
		return 1
	}
	return 0
}

// goFile is one parsed Go file of the repository.
type goFile struct {
	rel  string // path from the repository root, slash-separated
	dir  string // its package directory, likewise
	test bool
	ast  *ast.File
}

func parseTree(t *testing.T) []goFile {
	t.Helper()
	var out []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != repoRoot {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		out = append(out, goFile{rel: rel, dir: filepath.ToSlash(filepath.Dir(rel)), test: strings.HasSuffix(rel, "_test.go"), ast: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("read %d Go files: not the repository", len(out))
	}
	return out
}

// TestImportsPointDown: no package, and no test, imports a package of a higher layer. Tests
// that exercise a lower layer over real domains live at the domains layer
// (domains/safeguardtests, domains/eventsourcetests); there is no allowance list.
func TestImportsPointDown(t *testing.T) {
	for _, f := range parseTree(t) {
		for _, imp := range f.ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(path, modulePath+"/") {
				continue
			}
			target := strings.TrimPrefix(path, modulePath+"/")
			if layerOf(target) <= layerOf(f.dir) {
				continue
			}
			t.Errorf("%s (layer %d) imports %s (layer %d)", f.rel, layerOf(f.dir), target, layerOf(target))
		}
	}
}

// modelConstructors build model clients, or executors and writers over them.
var modelConstructors = map[string]bool{"NewModelClient": true, "NewModelExecutor": true, "NewModelWriter": true, "NewModelEventWriter": true}

// TestOneModelFactory: outside replay's tests, only replay/factory.go builds model clients;
// every command and screen resolves a model name through replay.Models.
func TestOneModelFactory(t *testing.T) {
	for _, f := range parseTree(t) {
		if f.rel == "replay/factory.go" || (f.test && f.dir == "replay") {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := ""
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			if modelConstructors[name] {
				t.Errorf("%s calls %s: resolve the model through replay.Models", f.rel, name)
			}
			return true
		})
	}
}

// TestNoConcreteStoreAssertion: outside runs nothing asserts an interface to *runs.Store;
// callers ask for the narrow interface they use. Outside runs and the commands' wiring
// (cmd/ealscope), no package converts to *runs.Store either (a `var _ X = (*runs.Store)(nil)`
// ties a layer to the SQLite backend: it checks against runs' concern interfaces instead).
// Tests may open the SQLite store as their fixture.
func TestNoConcreteStoreAssertion(t *testing.T) {
	isStore := func(e ast.Expr) bool {
		star, ok := e.(*ast.StarExpr)
		if !ok {
			return false
		}
		sel, ok := star.X.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == "runs" && sel.Sel.Name == "Store"
	}
	for _, f := range parseTree(t) {
		if f.dir == "runs" || strings.HasPrefix(f.dir, "runs/") {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeAssertExpr:
				if x.Type != nil && isStore(x.Type) {
					t.Errorf("%s: type assertion to *runs.Store", f.rel)
				}
			case *ast.TypeSwitchStmt:
				for _, c := range x.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if isStore(e) {
							t.Errorf("%s: type switch on *runs.Store", f.rel)
						}
					}
				}
			case *ast.CallExpr:
				if paren, ok := x.Fun.(*ast.ParenExpr); ok && isStore(paren.X) && !f.test && f.dir != "cmd/ealscope" {
					t.Errorf("%s: conversion to *runs.Store", f.rel)
				}
			}
			return true
		})
	}
}

// issueRef matches a reference to a numbered issue: the word issue (or issues) followed by a
// number, with or without a hash sign, or a hash and a number in parentheses.
var issueRef = regexp.MustCompile(`(?i)\bissues?[ -]+#?[0-9]|\(#[0-9]+\)`)

// sharedFormat matches a citation of the format description outside the repository (the
// project's own is docs/FORMATS.md).
var sharedFormat = regexp.MustCompile(`(^|[^S/])FORMAT\.md|shared/eal/FORMAT\.md`)

// TestNoIssueNumbers: no Go file, doc or CI script cites an issue number, and none cites a
// format description a contributor cloning the repository does not have.
func TestNoIssueNumbers(t *testing.T) {
	err := filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || !(strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, ".md") || strings.HasPrefix(rel, ".ci/")) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if issueRef.MatchString(line) {
				t.Errorf("%s:%d cites an issue number: %s", rel, i+1, strings.TrimSpace(line))
			}
			if sharedFormat.MatchString(line) {
				t.Errorf("%s:%d cites a format description outside the repository (cite docs/FORMATS.md): %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDeriveIsPure: the derivation package reads no database (nor the workspace package that
// opens one): rows in, derived rows out.
func TestDeriveIsPure(t *testing.T) {
	n := 0
	for _, f := range parseTree(t) {
		if f.dir != "runs/derive" || f.test {
			continue
		}
		n++
		for _, imp := range f.ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "database/sql" || strings.Contains(path, "sqlite") || path == modulePath+"/runs" {
				t.Errorf("%s imports %s", f.rel, path)
			}
		}
	}
	if n == 0 {
		t.Fatal("no runs/derive package")
	}
}

// The size limits of the project's conventions: a file a reader can hold in mind, a function
// that does one named step.
const (
	maxFileLines = 600
	maxFuncLines = 120
)

// generatedTables are the non-test Go files allowed past the size limits, each with the
// reason: only tables produced by a tool, never hand-written logic. None today.
var generatedTables = map[string]string{}

// TestSizeLimits: no non-test Go file is over maxFileLines lines and no non-test function
// (from its func line to its closing brace, comment above excluded) over maxFuncLines.
func TestSizeLimits(t *testing.T) {
	fset := token.NewFileSet()
	for _, f := range parseTree(t) {
		if f.test || generatedTables[f.rel] != "" {
			continue
		}
		path := filepath.Join(repoRoot, filepath.FromSlash(f.rel))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "\n"); n > maxFileLines {
			t.Errorf("%s: %d lines (limit %d)", f.rel, n, maxFileLines)
		}
		// parseTree's positions belong to its own file set; parse again here for line numbers.
		file, err := parser.ParseFile(fset, path, data, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			from, to := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
			if n := to - from + 1; n > maxFuncLines {
				t.Errorf("%s:%d: func %s is %d lines (limit %d)", f.rel, from, funcName(fn), n, maxFuncLines)
			}
		}
	}
}

// funcName is a function's name as a reader finds it: Recv.Name for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	recv := fn.Recv.List[0].Type
	if star, ok := recv.(*ast.StarExpr); ok {
		recv = star.X
	}
	if idx, ok := recv.(*ast.IndexExpr); ok {
		recv = idx.X
	}
	if id, ok := recv.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
