package plots_test

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/plots"
)

func TestSaveTimeline(t *testing.T) {
	tl := &plots.Timeline{Title: "t", Lanes: []string{"app0", "p1", "b1"}, End: 60e9,
		Arrows:    []plots.Arrow{{From: 0, To: 1, Sent: 1e8, At: 1e8, Faint: true}, {From: 1, To: 2, Sent: 2e8, At: 3e8}, {From: 2, To: 1, Sent: 4e8, At: 4e8, Lost: true}},
		Intervals: []plots.Interval{{Lane: 1, From: 1e9, To: 2e9, Label: "pause p1 1s"}},
		Marks:     []plots.Mark{{Lane: 2, At: 25e8, Label: "INV-DUP"}, {Lane: 2, At: 25e8, Label: "INV-ORDER"}, {Lane: 2, At: 251e7, Label: "INV-DUP"}, {Lane: 2, At: 60e9, Label: "INV-LOSS"}}}
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
	for _, want := range []string{"pause p1 1s", "app0",
		// Marks at (nearly) the same time share one label, each name once.
		">INV-DUP, INV-ORDER<",
		// A mark at the run's end, after idle time, is labelled with its time.
		"INV-LOSS (at the end, 60 s)",
		// The legend.
		"message lost", "violation found", "fault in effect"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if strings.Count(string(svg), ">INV-DUP") != 1 {
		t.Errorf("INV-DUP labelled %d times", strings.Count(string(svg), ">INV-DUP"))
	}
	f, err := os.Open(filepath.Join(dir, "t.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() < 1200 {
		t.Errorf("png: %v, width %d", err, img.Bounds().Dx())
	}
	if err := plots.SaveTimeline(tl, filepath.Join(dir, "t.pdf")); err == nil || !strings.Contains(err.Error(), "allowed: .svg, .png") {
		t.Errorf("pdf: %v", err)
	}
}

// TestTimelineSpan: the axis covers the events, not the idle time
// before the run's end, and says where the run ends.
func TestTimelineSpan(t *testing.T) {
	tl := &plots.Timeline{Title: "t", Lanes: []string{"p1", "b1"}, End: 120e9,
		Arrows: []plots.Arrow{{From: 0, To: 1, Sent: 1e9, At: 11e8}, {From: 1, To: 0, Sent: 3e9, At: 31e8}}}
	p, err := plots.TimelinePlot(tl)
	if err != nil {
		t.Fatal(err)
	}
	if p.X.Min < 0.9 || p.X.Min > 1 || p.X.Max > 3.3 || p.X.Max < 3.1 {
		t.Errorf("x axis %v..%v, want about 0.94..3.16", p.X.Min, p.X.Max)
	}
	if !strings.Contains(p.X.Label.Text, "the run ends at 120 s") {
		t.Errorf("x label %q", p.X.Label.Text)
	}
}
