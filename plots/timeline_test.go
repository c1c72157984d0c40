package plots_test

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/plots"
	"github.com/idemsim/idemsim/sim"
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
		// Marks at (nearly) the same time share one label, each name once
		// with its count.
		">INV-DUP ×2, INV-ORDER<",
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
// before the run's end, and says where the run ends. A fault still in
// effect at the end (a pause from 2 s that no resume ended) does not
// stretch the axis to the end: it runs off the right edge.
func TestTimelineSpan(t *testing.T) {
	tl := &plots.Timeline{Title: "t", Lanes: []string{"p1", "b1"}, End: 120e9,
		Arrows: []plots.Arrow{{From: 0, To: 1, Sent: 1e9, At: 11e8}, {From: 1, To: 0, Sent: 3e9, At: 31e8}}}
	for _, open := range []bool{false, true} {
		if open {
			tl.Intervals = []plots.Interval{{Lane: 0, From: 2e9, To: 120e9, Label: "pause p1 2m"}}
		}
		p, err := plots.TimelinePlot(tl)
		if err != nil {
			t.Fatal(err)
		}
		// The last event is the arrival at 3.1 s: the axis ends within
		// 3% of the events' span (2.1 s) after it.
		if p.X.Min < 0.9 || p.X.Min > 1 || p.X.Max < 3.1 || p.X.Max > 3.1+0.031*2.1 {
			t.Errorf("open fault %t: x axis %v..%v, want about 0.94..3.16", open, p.X.Min, p.X.Max)
		}
		if !strings.Contains(p.X.Label.Text, "the run ends at 120 s") || open != strings.Contains(p.X.Label.Text, "faults reaching the right edge last until then") {
			t.Errorf("open fault %t: x label %q", open, p.X.Label.Text)
		}
	}
}

// TestTimelineLabelsDoNotOverlap: a crowded timeline (faults starting
// together on one lane and on neighbouring lanes, fault names near the
// right edge, violations in many clusters) gets labels whose boxes do
// not overlap and lie in the data area; each label is drawn, whole or
// cut to its first word, or counted as left out; and the layout is the
// same every time.
func TestTimelineLabelsDoNotOverlap(t *testing.T) {
	tl := &plots.Timeline{Title: "crowded", Lanes: []string{"app0", "p1", "p2", "b1", "c1"}, End: 30e9}
	for i := range 12 {
		at := sim.Time(i%4) * 1e8 // four at once, three times over
		tl.Intervals = append(tl.Intervals, plots.Interval{Lane: 1 + i%3, From: at, To: at + 5e9, Label: fmt.Sprintf("partition-oneway p%d > c1 number %d", 1+i%2, i)})
	}
	tl.Intervals = append(tl.Intervals, plots.Interval{Lane: 4, From: 98e8, To: 30e9, Label: "pause c1 a long time at the right edge"})
	for i := range 40 {
		tl.Marks = append(tl.Marks, plots.Mark{Lane: 3, At: sim.Time(i) * 25e7, Label: []string{"INV-DUP", "INV-ORDER", "INV-LOSS"}[i%3]})
	}
	tl.Arrows = []plots.Arrow{{From: 1, To: 3, Sent: 0, At: 1e7}, {From: 3, To: 1, Sent: 10e9, At: 10e9}}
	lay, err := plots.LayoutTimeline(tl)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range lay.Labels {
		if b := a.Box; b.Min.X < lay.Area.Min.X || b.Max.X > lay.Area.Max.X || b.Min.Y < lay.Area.Min.Y || b.Max.Y > lay.Area.Max.Y {
			t.Errorf("label %q at %v leaves the data area %v", a.Text, b, lay.Area)
		}
		if a.Text != a.Full && !strings.HasPrefix(a.Full, strings.TrimSuffix(a.Text, " …")) {
			t.Errorf("label %q stands for %q", a.Text, a.Full)
		}
		for _, b := range lay.Labels[:i] {
			if a.Box.Min.X < b.Box.Max.X && b.Box.Min.X < a.Box.Max.X && a.Box.Min.Y < b.Box.Max.Y && b.Box.Min.Y < a.Box.Max.Y {
				t.Errorf("labels %q %v and %q %v overlap", a.Text, a.Box, b.Text, b.Box)
			}
		}
	}
	faults := 0
	for _, a := range lay.Labels {
		if !a.Violation {
			faults++
		}
		// A name too long to start at its fault near the right edge is
		// cut to its first word, rather than start before the fault.
		if a.Full == "pause c1 a long time at the right edge" && a.Text != "pause" {
			t.Errorf("the fault at the right edge is labelled %q", a.Text)
		}
	}
	if faults+countFaults(lay.Left) != len(tl.Intervals) || faults < 10 {
		t.Errorf("%d fault labels drawn, %d left out, of %d", faults, countFaults(lay.Left), len(tl.Intervals))
	}
	again, _ := plots.LayoutTimeline(tl)
	if !reflect.DeepEqual(lay, again) {
		t.Errorf("the layout differs from one call to the next")
	}
}

// countFaults counts the fault names (not violations) among labels.
func countFaults(labels []string) int {
	n := 0
	for _, l := range labels {
		if !strings.HasPrefix(l, "INV-") {
			n++
		}
	}
	return n
}

// TestTimelineLabelsLeftOut: labels with no room anywhere (six short
// faults at one instant on one lane) are left out rather than
// overprinted, and the legend counts them.
func TestTimelineLabelsLeftOut(t *testing.T) {
	tl := &plots.Timeline{Title: "t", Lanes: []string{"p1", "b1"}, End: 10e9,
		Arrows: []plots.Arrow{{From: 0, To: 1, Sent: 0, At: 1e8}, {From: 0, To: 1, Sent: 5e9, At: 51e8}}}
	for range 6 {
		tl.Intervals = append(tl.Intervals, plots.Interval{Lane: 0, From: 1e9, To: 101e7, Label: "pause p1 10ms"})
	}
	lay, err := plots.LayoutTimeline(tl)
	if err != nil {
		t.Fatal(err)
	}
	if len(lay.Labels) != 2 || len(lay.Left) != 4 {
		t.Fatalf("%d labels drawn, %d left out; want 2 (above and below the lane) and 4", len(lay.Labels), len(lay.Left))
	}
	path := filepath.Join(t.TempDir(), "t.svg")
	if err := plots.SaveTimeline(tl, path); err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(path)
	if !strings.Contains(string(svg), "(4 labels left out: no room)") || strings.Count(string(svg), ">pause p1 10ms<") != 2 {
		t.Errorf("svg: legend or labels wrong")
	}
}
