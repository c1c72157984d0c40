package lint

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoConflictMarkers: no source, document or test data file keeps the
// markers of an unresolved merge (a CHANGELOG once did, unnoticed).
func TestNoConflictMarkers(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "out" || strings.HasPrefix(n, "shrunk-") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".txt", ".golden", ".plan", ".yaml", ".csv", ".json", ".mmd":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<24)
		for n := 1; sc.Scan(); n++ {
			l := sc.Text()
			if strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, ">>>>>>> ") || l == "=======" {
				t.Errorf("%s:%d: a merge conflict marker: %q", strings.TrimPrefix(p, root+string(filepath.Separator)), n, l)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}
