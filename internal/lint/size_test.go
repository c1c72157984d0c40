package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Package size bounds, in lines of non-test Go code: no package is
// larger than maxPackageLines; one larger than reasonLines needs a
// reason in docs/architecture.md's "Package sizes" section (a row naming
// it), unless it is the protocol package, model.
const (
	maxPackageLines = 6000
	reasonLines     = 4000
)

// sizeRow is a row of docs/architecture.md's "Package sizes" table: a
// package path in backquotes in its first cell.
var sizeRow = regexp.MustCompile("^\\| `([a-z0-9_/]+)` \\|")

// TestPackageSizes: one job per package shows in its size.
func TestPackageSizes(t *testing.T) {
	root := filepath.Join("..", "..")
	lines := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "testdata" || strings.HasPrefix(n, ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		lines[filepath.ToSlash(rel)] += bytes.Count(b, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	reasoned := map[string]bool{}
	in := false
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "## ") {
			in = l == "## Package sizes"
		}
		if m := sizeRow.FindStringSubmatch(l); in && m != nil {
			reasoned[m[1]] = true
		}
	}
	var pkgs []string
	for p := range lines {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		n := lines[p]
		switch {
		case n > maxPackageLines:
			t.Errorf("%s: %d lines of non-test code, more than %d: split it", p, n, maxPackageLines)
		case n > reasonLines && p != "model" && !reasoned[p]:
			t.Errorf("%s: %d lines of non-test code, more than %d without a reason in docs/architecture.md's \"Package sizes\"", p, n, reasonLines)
		}
	}
	for p := range reasoned {
		if lines[p] <= reasonLines {
			t.Errorf("docs/architecture.md gives a size reason for %s, which has %d lines (at most %d need none): drop the row", p, lines[p], reasonLines)
		}
	}
}
