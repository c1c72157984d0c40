package lint

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestLayoutMatchesArchitecture: the folder list is the architecture. Every
// package of the module is a line of docs/architecture.md's package block
// (its first word), and every package the block names exists.
func TestLayoutMatchesArchitecture(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## Packages and the import direction\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Packages and the import direction" section`)
	}
	_, block, ok := strings.Cut(after, "```\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("docs/architecture.md's package section has no code block")
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(block, "\n") {
		if l == "" || l[0] == ' ' {
			continue // a continuation line
		}
		listed[strings.Fields(l)[0]] = true
	}
	have := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			have[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing, extra []string
	for p := range have {
		if !listed[p] {
			missing = append(missing, p)
		}
	}
	for p := range listed {
		if !have[p] {
			extra = append(extra, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	for _, p := range missing {
		t.Errorf("package %s is not in docs/architecture.md's package block", p)
	}
	for _, p := range extra {
		t.Errorf("docs/architecture.md's package block names %s, which has no Go code", p)
	}
}
