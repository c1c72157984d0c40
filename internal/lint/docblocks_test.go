package lint

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A Go block of docs/architecture.md is a file an extension recipe adds,
// or a line it adds to an existing file. Its first line says which:
//
//	// check/empty.go                               a new file: the block
//	// check/registry.go: after {LiveLSO, newLiveLSO},  lines to insert after
//	                                                that line of the file
//
// The blocks of one "###" section are one recipe: the test lays them all
// over the working tree at once with go build's -overlay (the tree itself
// is not touched), type-checks every package they touch with go vet, and
// runs the section's test command, if it names one in a comment
// "<!-- recipe-test: go test ... -->", with the same overlay. So a
// worked example cannot drift from the code, and the files a recipe
// touches are the blocks the reader sees.

// goBlock is one Go block of a document.
type goBlock struct {
	line    int    // the block's first line in the document
	section string // the "###" heading it is under
	path    string // the file it adds or edits
	after   string // for an edit, the line it is inserted after
	body    string // the block without its first line
}

var (
	blockNew  = regexp.MustCompile(`^// ([a-z0-9_/]+\.go)$`)
	blockEdit = regexp.MustCompile(`^// ([a-z0-9_/]+\.go): after (.+)$`)
	recipeCmd = regexp.MustCompile(`^<!-- recipe-test: (go test .+) -->$`)
)

// docRecipes returns the Go blocks of the Markdown file md and the test
// commands of its sections, by section.
func docRecipes(t *testing.T, md string) ([]goBlock, map[string]string) {
	t.Helper()
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	var out []goBlock
	cmds := map[string]string{}
	section := ""
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "#") {
			section = strings.TrimSpace(strings.TrimLeft(l, "#"))
			continue
		}
		if m := recipeCmd.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			cmds[section] = m[1]
			continue
		}
		if strings.TrimSpace(l) != "```go" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		blk := goBlock{line: i + 2, section: section}
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		if len(body) > 0 {
			if m := blockEdit.FindStringSubmatch(body[0]); m != nil {
				blk.path, blk.after = m[1], m[2]
			} else if m := blockNew.FindStringSubmatch(body[0]); m != nil {
				blk.path = m[1]
			}
			body = body[1:]
		}
		blk.body = strings.Join(body, "\n") + "\n"
		out = append(out, blk)
	}
	return out, cmds
}

// docExample returns the new file rel as docs/architecture.md's recipe
// shows it: the recipe tests build the command with the example the
// reader sees, not with a copy of it.
func docExample(t *testing.T, rel string) string {
	t.Helper()
	blocks, _ := docRecipes(t, filepath.Join("..", "..", "docs", "architecture.md"))
	for _, blk := range blocks {
		if blk.path == rel && blk.after == "" {
			return blk.body
		}
	}
	t.Fatalf("docs/architecture.md has no example file %s", rel)
	return ""
}

// overlayFile returns what blk makes of its file: the block itself for a
// new file, the file with the block's lines inserted for an edit.
func overlayFile(root string, blk goBlock) (string, error) {
	_, err := os.Stat(filepath.Join(root, blk.path))
	if blk.after == "" {
		if err == nil {
			return "", fmt.Errorf("%s exists: a new file's block must name a file that does not", blk.path)
		}
		return blk.body, nil
	}
	b, err := os.ReadFile(filepath.Join(root, blk.path))
	if err != nil {
		return "", err
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == blk.after {
			ins := strings.Split(strings.TrimSuffix(blk.body, "\n"), "\n")
			return strings.Join(append(lines[:i+1:i+1], append(ins, lines[i+1:]...)...), "\n"), nil
		}
	}
	return "", fmt.Errorf("%s has no line %q to insert after", blk.path, blk.after)
}

// TestArchitectureRecipes: every Go block of docs/architecture.md
// compiles in the package it says it belongs to, with the other blocks
// of its recipe, and the recipe's test command passes with them.
func TestArchitectureRecipes(t *testing.T) {
	if !*long {
		t.Skip("-long: recompiles the packages each recipe touches (.ci/run runs it)")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	blocks, cmds := docRecipes(t, filepath.Join(root, "docs", "architecture.md"))
	if len(blocks) == 0 {
		t.Fatal("docs/architecture.md has no Go block: the worked examples are gone")
	}
	var order []string
	bySection := map[string][]goBlock{}
	for _, blk := range blocks {
		if blk.path == "" {
			t.Errorf("docs/architecture.md:%d: a Go block starts with a line \"// DIR/FILE.go\" (a new file) or \"// DIR/FILE.go: after LINE\" (an edit)", blk.line)
			continue
		}
		if _, ok := bySection[blk.section]; !ok {
			order = append(order, blk.section)
		}
		bySection[blk.section] = append(bySection[blk.section], blk)
	}
	tmp := t.TempDir()
	for n, section := range order {
		t.Run(section, func(t *testing.T) {
			replace := map[string]string{}
			pkgs := map[string]bool{}
			for i, blk := range bySection[section] {
				text, err := overlayFile(root, blk)
				if err != nil {
					t.Fatalf("docs/architecture.md:%d: %v", blk.line, err)
				}
				src := filepath.Join(tmp, fmt.Sprintf("s%d-b%d.go", n, i))
				if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				replace[filepath.Join(root, blk.path)] = src
				pkgs["./"+filepath.Dir(blk.path)] = true
			}
			ov, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
			ovPath := filepath.Join(tmp, fmt.Sprintf("overlay%d.json", n))
			if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"vet", "-overlay", ovPath}
			for p := range pkgs {
				args = append(args, p)
			}
			run(t, root, args...)
			if c, ok := cmds[section]; ok {
				f := strings.Fields(c)
				run(t, root, append([]string{f[1], "-overlay", ovPath, "-count=1"}, f[2:]...)...)
			}
		})
	}
}

// run runs the go command with args in dir and fails the test with its
// output if it fails.
func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
