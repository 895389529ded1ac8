package main

import (
	"go/ast"
	"strings"
	"testing"
)

// TestCommandsPrintJSONThroughWriteJSON: outside output.go no command encodes JSON itself;
// every --json output goes through writeJSON, which escapes the control and invisible
// characters untrusted text (corpora, model replies) may carry.
func TestCommandsPrintJSONThroughWriteJSON(t *testing.T) {
	for _, f := range parseTree(t) {
		if f.dir != "cmd/ealscope" || f.test || f.rel == "cmd/ealscope/output.go" {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "json" && (sel.Sel.Name == "NewEncoder" || strings.HasPrefix(sel.Sel.Name, "Marshal")) {
				t.Errorf("%s calls json.%s: print JSON with writeJSON", f.rel, sel.Sel.Name)
			}
			return true
		})
	}
}
