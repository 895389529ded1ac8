package main

import (
	"go/ast"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDomainNamesStayHome: a domain's names live only in its own package (docs/DOMAINS.md).
// Outside domains/<name>/ no non-test Go file imports the domain's package or spells its name
// in a string, except the registry (domains/domains.go) that wires every domain in. Code
// elsewhere learns a domain from the run or case it reads (its domain id) and reaches its
// rules through the registry and the role interfaces.
func TestDomainNamesStayHome(t *testing.T) {
	entries, err := os.ReadDir(repoRoot + "/domains")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		// A domain is a package under domains/ that the registry imports.
		if e.IsDir() && e.Name() != "internal" && registryImports(t, e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) < 3 {
		t.Fatalf("found domains %v: expected the three built-in ones", names)
	}
	word := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
	for _, f := range parseTree(t) {
		if f.test || f.rel == "domains/domains.go" {
			continue
		}
		home := ""
		for _, n := range names {
			if f.dir == "domains/"+n || strings.HasPrefix(f.dir, "domains/"+n+"/") {
				home = n
			}
		}
		for _, imp := range f.ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, n := range names {
				if n != home && path == modulePath+"/domains/"+n {
					t.Errorf("%s imports domain package %s", f.rel, n)
				}
			}
		}
		if home != "" {
			// Inside a domain, another domain's name is an ordinary word of its own texts
			// (procurement's "finance" desk); its imports are checked above.
			continue
		}
		ast.Inspect(f.ast, func(node ast.Node) bool {
			lit, ok := node.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			for _, m := range word.FindAllString(lit.Value, -1) {
				t.Errorf("%s: string %s names domain %q outside its package", f.rel, lit.Value, m)
			}
			return true
		})
	}
}

// registryImports says whether domains/domains.go imports domains/<name>.
func registryImports(t *testing.T, name string) bool {
	t.Helper()
	src, err := os.ReadFile(repoRoot + "/domains/domains.go")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(src), strconv.Quote(modulePath+"/domains/"+name))
}
