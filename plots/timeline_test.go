package plots_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/plots"
)

func TestSaveTimeline(t *testing.T) {
	tl := &plots.Timeline{Title: "t", Lanes: []string{"app0", "p1", "b1"}, End: 3e9,
		Arrows:    []plots.Arrow{{From: 0, To: 1, Sent: 1e8, At: 1e8, Faint: true}, {From: 1, To: 2, Sent: 2e8, At: 3e8}, {From: 2, To: 1, Sent: 4e8, At: 4e8, Lost: true}},
		Intervals: []plots.Interval{{Lane: 1, From: 1e9, To: 2e9, Label: "pause p1 1s"}},
		Marks:     []plots.Mark{{Lane: 2, At: 25e8, Label: "INV-DUP"}, {Lane: 2, At: 25e8, Label: "INV-ORDER"}}}
	dir := t.TempDir()
	for _, name := range []string{"t.svg", "t.png"} {
		path := filepath.Join(dir, name)
		if err := plots.SaveTimeline(tl, path); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() < 1000 {
			t.Fatalf("%s: %v %v", name, fi, err)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "t.svg"))
	for _, want := range []string{"pause p1 1s", "INV-DUP", "app0"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if err := plots.SaveTimeline(tl, filepath.Join(dir, "t.pdf")); err == nil || !strings.Contains(err.Error(), "allowed: .svg, .png") {
		t.Errorf("pdf: %v", err)
	}
}
