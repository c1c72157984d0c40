package lint

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docLink matches a Markdown link or image target.
var docLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsStandAlone: the README and docs/ read on a fresh clone: no
// mention of the shared Kafka notes a clone does not have, and every
// relative link names a file of the repository.
func TestDocsStandAlone(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "README.md"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(f, root+string(filepath.Separator))
		if strings.Contains(string(b), "shared/kafka") {
			t.Errorf("%s mentions shared/kafka, which a clone does not have (see docs/kafka-model.md)", name)
		}
		for _, m := range docLink.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which is not in the repository", name, m[1])
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "kafka-model.md")); err != nil {
		t.Error(err)
	}
}
