package callpath

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sample = `// A comment before the package clause.
package p // trailing

import "sort"

type Loop[E any] struct{ n int }

func (l *Loop[E]) Run() { l.n++ }

func free(xs []int) int {
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	switch len(xs) {
	case 0:
		return make(0, ObsOutcome)
	}
	o := Obs{Kind: ObsOutcome}
	if o.Kind == ObsOutcome {
		return 1
	}
	return 2
}

var init0 = func() int { return 0 }

func decl()
`

// TestInstrumentFile: every function body, a generic method's and a
// function literal's included, records its entry first; the statements
// that hand ObsOutcome to a call or a composite literal are marked, a
// comparison with it is not; every declaration keeps its line.
func TestInstrumentFile(t *testing.T) {
	out, changed, err := InstrumentFile("a/b.go", []byte(sample), "m/rec")
	if err != nil {
		t.Fatal(err)
	}
	if !changed {
		t.Fatal("nothing instrumented")
	}
	got := string(out)
	for _, want := range []string{
		`package p; import __callpath "m/rec" // trailing`,
		`func (l *Loop[E]) Run() {defer __callpath.Exit(__callpath.Enter("a/b.go", "Loop.Run")); l.n++ }`,
		`func free(xs []int) int {defer __callpath.Exit(__callpath.Enter("a/b.go", "free"));`,
		`func(i, j int) bool {defer __callpath.Exit(__callpath.Enter("a/b.go", "free.func1")); return xs[i] < xs[j] }`,
		`__callpath.Mark("a/b.go", "free", "ObsOutcome"); return make(0, ObsOutcome)`,
		`__callpath.Mark("a/b.go", "free", "ObsOutcome"); o := Obs{Kind: ObsOutcome}`,
		`var init0 = func() int {defer __callpath.Exit(__callpath.Enter("a/b.go", "init.func1")); return 0 }`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("instrumented file lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "Mark("); n != 2 {
		t.Errorf("%d marks, want 2 (the comparison is no construction):\n%s", n, got)
	}
	if n := strings.Count(got, "Enter("); n != 4 {
		t.Errorf("%d entries recorded, want 4 (decl has no body):\n%s", n, got)
	}
	if lines(t, sample) != lines(t, got) {
		t.Errorf("declarations moved:\nbefore %v\nafter  %v", lines(t, sample), lines(t, got))
	}
}

// lines returns the line of each declaration, function literal and
// statement of src (the recorder's own calls and import aside).
func lines(t *testing.T, src string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatalf("%v:\n%s", err, src)
	}
	var b strings.Builder
	ast.Inspect(f, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit, *ast.TypeSpec, *ast.ValueSpec, *ast.ReturnStmt, *ast.AssignStmt, *ast.IfStmt, *ast.SwitchStmt:
			fmt.Fprintf(&b, " %d", fset.Position(n.Pos()).Line)
		}
		return true
	})
	return b.String()
}

// TestInstrumentFileNothing: a file without a function body is left as
// it is, without the recorder's import, which it would not use.
func TestInstrumentFileNothing(t *testing.T) {
	src := "// Package p.\npackage p\n\ntype T int\n\nconst ObsOutcome T = 1\n"
	out, changed, err := InstrumentFile("p/doc.go", []byte(src), "m/rec")
	if err != nil {
		t.Fatal(err)
	}
	if changed || string(out) != src {
		t.Errorf("changed %v:\n%s", changed, out)
	}
}

// TestWorldFiles: the walk takes the world's packages' non-test files
// and leaves out internal/, cmd/ and plots/ at the root, testdata and
// hidden directories, but not an internal directory further down.
func TestWorldFiles(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"go.mod", "sim/loop.go", "sim/loop_test.go", "model/a.go", "model/testdata/x.go",
		"scenarios/world/internal/store/s.go", "internal/lint/l.go", "cmd/simulate/main.go",
		"plots/p.go", ".git/x.go", "docs/x.md",
	} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("module m\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := WorldFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"model/a.go", "scenarios/world/internal/store/s.go", "sim/loop.go"}
	if !slices.Equal(got, want) {
		t.Errorf("WorldFiles = %v, want %v", got, want)
	}
	if mod, err := ModulePath(root); err != nil || mod != "m" {
		t.Errorf("ModulePath = %q, %v; want m", mod, err)
	}
}
