package callpath

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// recAlias is the name the instrumented files give the recorder package.
const recAlias = "__callpath"

// OutcomeMark is the identifier whose construction [Instrument] marks: a
// statement that passes it to a call or puts it in a composite literal
// makes a record's outcome observation.
const OutcomeMark = "ObsOutcome"

// skipped are the directories at the module root whose packages are not
// the simulated world: the tools, the command and the charts.
var skipped = map[string]bool{"internal": true, "cmd": true, "plots": true}

// ModulePath returns the module path go.mod at root declares.
func ModulePath(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line in go.mod", root)
}

// WorldFiles returns the non-test Go files of the simulated world's
// packages under root, as slash-separated paths relative to it, sorted:
// every package directory but those under internal/, cmd/ and plots/ at
// the root, and testdata or hidden directories anywhere.
func WorldFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || skipped[rel]) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// insertion is text to insert before the byte at off; among insertions at
// one offset, lower rank goes first.
type insertion struct {
	off  int
	rank int
	text string
}

// InstrumentFile returns src, the contents of the file at the
// slash-separated path rel, with every function body recording its entry
// and its return, and a mark before each statement that constructs
// [OutcomeMark], through the package recPath imported as __callpath (not
// imported at all by a file with nothing to record). Every insertion
// stays on the line it is made at, so positions keep their line numbers.
// The bool reports whether anything was inserted.
func InstrumentFile(rel string, src []byte, recPath string) ([]byte, bool, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, false, err
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	var ins []insertion
	enter := func(body *ast.BlockStmt, name string) {
		ins = append(ins, insertion{off(body.Lbrace) + 1, 0,
			fmt.Sprintf("defer %s.Exit(%s.Enter(%q, %q));", recAlias, recAlias, rel, name)})
	}
	// Statements that can hold a mark before them, each with the
	// function it is in.
	type stmt struct {
		s    ast.Stmt
		name string
	}
	var stmts []stmt
	var uses []token.Pos
	isMark := func(e ast.Expr) bool {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return x.Name == OutcomeMark
		case *ast.SelectorExpr:
			return x.Sel.Name == OutcomeMark
		}
		return false
	}
	for _, d := range f.Decls {
		name := "init"
		if fd, ok := d.(*ast.FuncDecl); ok {
			name = funcName(fd)
			if fd.Body != nil {
				enter(fd.Body, name)
			}
		}
		lits := 0
		// stack holds, for each node the inspection is inside, the name
		// of the function around it; cur is the current node's.
		var stack []string
		cur := name
		ast.Inspect(d, func(n ast.Node) bool {
			if n == nil {
				cur, stack = stack[len(stack)-1], stack[:len(stack)-1]
				return true
			}
			stack = append(stack, cur)
			switch x := n.(type) {
			case *ast.FuncLit:
				lits++
				cur = name + ".func" + strconv.Itoa(lits)
				enter(x.Body, cur)
			case *ast.BlockStmt:
				for _, s := range x.List {
					stmts = append(stmts, stmt{s, cur})
				}
			case *ast.CaseClause:
				for _, s := range x.Body {
					stmts = append(stmts, stmt{s, cur})
				}
			case *ast.CommClause:
				for _, s := range x.Body {
					stmts = append(stmts, stmt{s, cur})
				}
			case *ast.CallExpr:
				for _, a := range x.Args {
					if isMark(a) {
						uses = append(uses, a.Pos())
					}
				}
			case *ast.CompositeLit:
				for _, e := range x.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						e = kv.Value
					}
					if isMark(e) {
						uses = append(uses, e.Pos())
					}
				}
			}
			return true
		})
	}
	for _, u := range uses {
		best := -1
		for i, s := range stmts {
			if s.s.Pos() <= u && u < s.s.End() && (best < 0 || s.s.End()-s.s.Pos() < stmts[best].s.End()-stmts[best].s.Pos()) {
				best = i
			}
		}
		if best < 0 {
			continue // outside any function body: a package-level value
		}
		s := stmts[best]
		ins = append(ins, insertion{off(s.s.Pos()), 1,
			fmt.Sprintf("%s.Mark(%q, %q, %q); ", recAlias, rel, s.name, OutcomeMark)})
	}
	if len(ins) == 0 {
		return src, false, nil
	}
	ins = append(ins, insertion{off(f.Name.End()), 0, fmt.Sprintf("; import %s %q", recAlias, recPath)})
	sort.SliceStable(ins, func(i, j int) bool {
		if ins[i].off != ins[j].off {
			return ins[i].off < ins[j].off
		}
		return ins[i].rank < ins[j].rank
	})
	var b bytes.Buffer
	last := 0
	for _, in := range ins {
		b.Write(src[last:in.off])
		b.WriteString(in.text)
		last = in.off
	}
	b.Write(src[last:])
	return b.Bytes(), true, nil
}

// funcName is a declared function's name, a method's with its receiver's
// type: "World.appSend", "Loop.Run", "Lookup".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}
