package plots

import (
	"math"
	"reflect"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// TestLostArrow: a lost message is drawn from its sender's lane towards
// its receiver's, ending, in a cross, lostShort lanes before the
// receiver's lane at the time it was lost: never on a lane, nearer the
// receiver's lane than any other, whichever way it goes and however many
// lanes it crosses (a lost p2→c1 used to stop halfway, on b1's lane). A
// delivered message ends on its receiver's lane.
func TestLostArrow(t *testing.T) {
	tl := &Timeline{Lanes: []string{"app0", "p1", "p2", "b1", "c1"}, End: 60e9}
	p2, b1, c1 := 2, 3, 4
	for _, c := range []struct {
		name     string
		a        Arrow
		wantX    float64
		nearest  int
		lost     bool
		onTheWay []int // lanes the line crosses
	}{
		{"lost p2→c1", Arrow{From: p2, To: c1, Sent: 1e9, At: 12e8, Lost: true}, 1.2, c1, true, []int{b1}},
		{"lost c1→p2", Arrow{From: c1, To: p2, Sent: 1e9, At: 12e8, Lost: true}, 1.2, p2, true, []int{b1}},
		{"lost p2→b1, never left", Arrow{From: p2, To: b1, Sent: 1e9, At: 1e9, Lost: true}, 1, b1, true, nil},
		{"lost app0→c1, lost after the axis", Arrow{From: 0, To: c1, Sent: 1e9, At: 20e9, Lost: true}, 10, c1, true, []int{1, p2, b1}},
		{"delivered p2→c1", Arrow{From: p2, To: c1, Sent: 1e9, At: 12e8}, 1.2, c1, false, []int{b1}},
	} {
		ar := tl.arrowLine(c.a, 10)
		if ar.lost != c.lost || ar.head == c.lost || ar.from.X != 1 || ar.from.Y != tl.y(c.a.From) || ar.to.X != c.wantX {
			t.Errorf("%s: line %+v", c.name, ar)
			continue
		}
		dist := math.Abs(ar.to.Y - tl.y(c.a.To))
		if !c.lost {
			if dist != 0 {
				t.Errorf("%s: ends at height %v, not on lane %d", c.name, ar.to.Y, c.a.To)
			}
			continue
		}
		if math.Abs(dist-lostShort) > 1e-9 {
			t.Errorf("%s: ends %v lanes from its receiver's, want %v", c.name, dist, lostShort)
		}
		for i := range tl.Lanes {
			d := math.Abs(ar.to.Y - tl.y(i))
			if i != c.nearest && d <= dist || d < 0.25 {
				t.Errorf("%s: ends at height %v, %v from lane %s (%v from its receiver's)", c.name, ar.to.Y, d, tl.Lanes[i], dist)
			}
		}
		// Between the sender's lane and the receiver's.
		lo, hi := min(tl.y(c.a.From), tl.y(c.a.To)), max(tl.y(c.a.From), tl.y(c.a.To))
		if ar.to.Y <= lo || ar.to.Y >= hi {
			t.Errorf("%s: ends at height %v, outside %v..%v", c.name, ar.to.Y, lo, hi)
		}
		for _, l := range c.onTheWay {
			if y := tl.y(l); (y-ar.from.Y)*(y-ar.to.Y) >= 0 {
				t.Errorf("%s: does not cross lane %s", c.name, tl.Lanes[l])
			}
		}
	}
}

// TestLayoutAsDrawn: LayoutTimeline, which the tests read, places the
// labels exactly where drawing the timeline does.
func TestLayoutAsDrawn(t *testing.T) {
	tl := &Timeline{Title: "t", Lanes: []string{"app0", "p1", "b1"}, End: 60e9,
		Arrows:    []Arrow{{From: 1, To: 2, Sent: 2e8, At: 3e8}, {From: 2, To: 1, Sent: 4e8, At: 4e8, Lost: true}},
		Intervals: []Interval{{Lane: 1, From: 1e9, To: 2e9, Label: "pause p1 1s"}, {Lane: 1, From: 1e9, To: 2e9, Label: "partition p1 | b1"}},
		Marks:     []Mark{{Lane: 2, At: 25e8, Label: "INV-DUP"}, {Lane: 2, At: 60e9, Label: "INV-LOSS"}}}
	p, labels, err := timelinePlot(tl)
	if err != nil {
		t.Fatal(err)
	}
	p.Draw(plotArea(draw.New(vgsvg.New(timelineSize(tl)))))
	want, err := LayoutTimeline(tl)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Labels) != 4 || !reflect.DeepEqual(labels.layout, want) {
		t.Errorf("drawn %+v\nlaid out %+v", labels.layout, want)
	}
}
