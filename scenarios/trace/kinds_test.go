package trace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// modelKinds returns the names of the observation kinds model defines, in
// the order of their definition, which is their value: one const block of
// type model.ObsKind counting up from iota.
func modelKinds(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "model", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("model's files: %v (%d)", err, len(files))
	}
	var names []string
	blocks := 0
	fset := token.NewFileSet()
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for i, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "ObsKind" {
					if i != 0 || len(vs.Values) != 1 || !isIota(vs.Values[0]) {
						t.Fatalf("%s: %s: observation kinds are one block counting up from iota", fset.Position(vs.Pos()), vs.Names[0].Name)
					}
					blocks++
					names = appendKinds(t, fset, names, gd.Specs)
				}
			}
		}
	}
	if blocks != 1 || len(names) == 0 {
		t.Fatalf("found %d blocks of observation kinds (%d kinds), want one", blocks, len(names))
	}
	return names
}

func isIota(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "iota"
}

// appendKinds appends the names of a block's specs, which after the first
// must repeat it (no type, no value).
func appendKinds(t *testing.T, fset *token.FileSet, names []string, specs []ast.Spec) []string {
	for i, s := range specs {
		vs := s.(*ast.ValueSpec)
		if i > 0 && (vs.Type != nil || len(vs.Values) > 0) {
			t.Fatalf("%s: %s breaks the iota sequence of observation kinds", fset.Position(vs.Pos()), vs.Names[0].Name)
		}
		for _, n := range vs.Names {
			names = append(names, n.Name)
		}
	}
	return names
}

// tableKeys returns the kinds the table's entries name in kinds.go, in
// source order.
func tableKeys(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "kinds.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			if vs.Names[0].Name != "kinds" {
				continue
			}
			for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
				sel := e.(*ast.KeyValueExpr).Key.(*ast.SelectorExpr)
				keys = append(keys, sel.Sel.Name)
			}
		}
	}
	return keys
}

// TestEveryKindHasAnEntry: every observation kind model defines has an
// entry in the table, with both a line and a hash or marked noLine, and
// the entries follow model's order; the table has no entry for a kind
// model does not define.
func TestEveryKindHasAnEntry(t *testing.T) {
	names := modelKinds(t)
	if int(model.ObsRunStart) != 0 || names[0] != "ObsRunStart" {
		t.Fatalf("the first kind is %s, want ObsRunStart = 0", names[0])
	}
	for k, name := range names {
		if k >= len(kinds) {
			t.Errorf("%s (%d) has no entry in the trace table: give it a line and a hash, or mark it noLine", name, k)
			continue
		}
		e := kinds[k]
		switch {
		case e.noLine && (e.line != nil || e.hash != nil || e.omit != nil):
			t.Errorf("%s (%d) is marked noLine but has a line, hash or omit", name, k)
		case e.noLine:
		case e.line == nil && e.hash == nil:
			t.Errorf("%s (%d) has no entry in the trace table: give it a line and a hash, or mark it noLine", name, k)
		case e.line == nil || e.hash == nil:
			t.Errorf("%s (%d) has a line without a hash or a hash without a line", name, k)
		}
	}
	if len(kinds) > len(names) {
		t.Errorf("the trace table has %d entries for %d observation kinds", len(kinds), len(names))
	}
	if keys := tableKeys(t); !slices.Equal(keys, names) {
		t.Errorf("the table's entries are not in model's order of the kinds:\n table %v\n model %v", keys, names)
	}
}
