package check

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestUnreadKinds: the kinds Suite.Observe skips (unreadKinds) are named
// nowhere in the package's code but in that list, and ObsSent, which it
// hands to the transaction facts alone, is named only there
// (txnview.go). A checker that starts reading one of them fails here
// instead of silently seeing nothing.
func TestUnreadKinds(t *testing.T) {
	unread := map[string]model.ObsKind{
		"ObsDelivered": model.ObsDelivered, "ObsLost": model.ObsLost, "ObsDup": model.ObsDup,
		"ObsHold": model.ObsHold, "ObsDisconnected": model.ObsDisconnected,
	}
	if len(unreadKinds) != len(unread) {
		t.Fatalf("unreadKinds has %d kinds, this test knows %d", len(unreadKinds), len(unread))
	}
	for name, k := range unread {
		if !slices.Contains(unreadKinds[:], k) {
			t.Fatalf("unreadKinds lacks %s", name)
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "model" {
				return true
			}
			pos := fset.Position(sel.Pos())
			inList := strings.Contains(lines[pos.Line-1], "unreadKinds = ")
			if _, ok := unread[sel.Sel.Name]; ok && !inList {
				t.Errorf("%s: model.%s is read, but Suite.Observe skips it (unreadKinds)", pos, sel.Sel.Name)
			}
			if sel.Sel.Name == "ObsSent" && f != "txnview.go" && f != "registry.go" {
				t.Errorf("%s: model.ObsSent is read, but Suite.Observe hands it to the transaction facts alone", pos)
			}
			return true
		})
	}
}
