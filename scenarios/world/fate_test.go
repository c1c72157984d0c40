package world

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyFateCallsTheNetwork: one place decides a message's fate. No
// file of the World but fate.go calls the network's Send, SendLost or
// Arrive.
func TestOnlyFateCallsTheNetwork(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	calls := 0
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "Send", "SendLost", "Arrive":
			default:
				return true
			}
			if x, ok := sel.X.(*ast.SelectorExpr); ok && x.Sel.Name == "nw" {
				if p != "fate.go" {
					t.Errorf("%s: calls the network's %s outside the fate pipeline (fate.go)", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				calls++
			}
			return true
		})
	}
	if calls == 0 {
		t.Error("found no call of the network's Send, SendLost or Arrive: the test no longer sees them")
	}
}
