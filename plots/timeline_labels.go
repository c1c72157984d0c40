package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// TimelineLabel is one label of a timeline as [SaveTimeline] draws it.
type TimelineLabel struct {
	// Text is what is drawn: Full, or its first word when Full found no
	// room.
	Text, Full string
	// Box is the text's bounding box in points on the drawing, whose
	// origin is its lower left corner.
	Box vg.Rectangle
	// Violation is set for a violation label, unset for a fault's.
	Violation bool

	at    vg.Point // where the text is drawn
	style text.Style
}

// TimelineLayout is where [SaveTimeline] puts a timeline's labels: the
// faults' names on their lanes, and one label per cluster of violations
// at the top. No two labels' boxes overlap: a label that finds no room
// where it belongs moves to the other side of its lane (or, for
// violations, to a lower row or the other side of their line), then
// further right within its fault's interval, then is cut to its first
// word, and only then is left out. A fault's name that would cross the
// right edge is cut to its first word, and if that still does, it ends
// at the edge.
type TimelineLayout struct {
	Labels []TimelineLabel
	// Left are the labels left out for want of room; the legend counts
	// them.
	Left []string
	// Area is the data area of the plot in points, which holds every
	// label.
	Area vg.Rectangle
}

// Label placement, in points: the gap kept between a label and its lane
// or violation line, between labels in a row, and between rows.
const (
	labelPad    = vg.Length(2)
	labelSide   = vg.Length(3)
	labelGap    = vg.Length(8)
	labelRowGap = vg.Length(1)
	labelSize   = vg.Length(9) // font size, points
	markRows    = 4            // rows of violation labels, from the top down
)

// LayoutTimeline places tl's labels as [SaveTimeline] draws them (the
// layout depends on the drawing's size and fonts, not on the format).
func LayoutTimeline(tl *Timeline) (*TimelineLayout, error) {
	p, _, err := timelinePlot(tl)
	if err != nil {
		return nil, err
	}
	return layoutLabels(tl, p, p.DataCanvas(plotArea(draw.New(vgsvg.New(timelineSize(tl)))))), nil
}

// labelPlotter draws tl's labels; layout is where, once drawn.
type labelPlotter struct {
	tl     *Timeline
	layout *TimelineLayout
}

// Plot implements plot.Plotter: it places the labels on c, the plot's
// data area, and draws them.
func (l *labelPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	l.layout = layoutLabels(l.tl, p, c)
	l.layout.draw(c)
}

// layoutLabels places the labels of tl, drawn as p with data area dc.
func layoutLabels(tl *Timeline, p *plot.Plot, dc draw.Canvas) *TimelineLayout {
	trX, trY := p.Transforms(&dc)
	l := &TimelineLayout{Area: dc.Rectangle}
	style := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, labelSize), Handler: plot.DefaultTextHandler}
	// box returns the box of s with its lower left corner at pt.
	box := func(s string, pt vg.Point) vg.Rectangle {
		r := style.Rectangle(s)
		return vg.Rectangle{Min: pt, Max: pt.Add(r.Size())}
	}
	place := func(full, s string, b vg.Rectangle, violation bool) {
		st := style
		if violation {
			st.Color = violationColor
		}
		l.Labels = append(l.Labels, TimelineLabel{Text: s, Full: full, Box: b, Violation: violation, at: b.Min.Sub(st.Rectangle(s).Min), style: st})
	}

	// Violations first, at the top: one label per cluster of nearby
	// marks, each name once with its count.
marks:
	for _, c := range markClusters(tl, p) {
		x := trX(c.x)
		rightFirst := c.x <= p.X.Min+0.7*(p.X.Max-p.X.Min)
		for _, s := range variants(c.label, c.short) {
			h := box(s, vg.Point{}).Size().Y
			for k := range markRows {
				top := dc.Max.Y - labelPad - vg.Length(k)*(h+labelRowGap)
				right := box(s, vg.Point{X: x + labelSide, Y: top - h})
				left := right.Add(vg.Point{X: -right.Size().X - 2*labelSide})
				cands := []vg.Rectangle{right, left}
				if !rightFirst {
					cands = []vg.Rectangle{left, right}
				}
				for _, b := range cands {
					if l.fits(b) {
						place(c.label, s, b, true)
						continue marks
					}
				}
			}
		}
		l.Left = append(l.Left, c.label) // no room anywhere
	}

	// Then the faults, in time order: on their lane, above its line or
	// below, from where the fault starts.
	ivs := slices.Clone(tl.Intervals)
	slices.SortStableFunc(ivs, func(a, b Interval) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Lane, b.Lane))
	})
faults:
	for _, iv := range ivs {
		if iv.Label == "" || iv.Lane < 0 || iv.Lane >= len(tl.Lanes) {
			continue
		}
		x0 := trX(max(float64(iv.From)/1e9, p.X.Min)) + labelPad
		xEnd := trX(min(float64(iv.To)/1e9, p.X.Max))
		laneY := trY(tl.y(iv.Lane))
		vs := variants(iv.Label, firstWord(iv.Label))
		for vi, s := range vs {
			sz := box(s, vg.Point{}).Size()
			if x0+sz.X > dc.Max.X && vi < len(vs)-1 {
				continue // it would start before the fault: try the shorter text
			}
			rows := []vg.Length{laneY + labelPad, laneY - labelPad - sz.Y} // bottoms: above the line, below it
			// Where the fault starts, on either side; then further right,
			// past the labels in the way, while still within the fault.
			for _, shift := range []bool{false, true} {
				for _, bottom := range rows {
					x := x0
					for range len(l.Labels) + 1 {
						b := box(s, vg.Point{X: x, Y: bottom})
						if b.Max.X > dc.Max.X { // at the right edge: end there
							b = b.Add(vg.Point{X: dc.Max.X - b.Max.X})
						}
						if l.fits(b) {
							place(iv.Label, s, b, false)
							continue faults
						}
						if !shift {
							break
						}
						next := x
						for _, o := range l.Labels {
							if overlaps(b, o.Box, labelGap) {
								next = max(next, o.Box.Max.X+labelGap)
							}
						}
						if next == x || next > xEnd || b.Min.X < x { // nothing to pass, past the fault, or pinned at the edge
							break
						}
						x = next
					}
				}
			}
		}
		l.Left = append(l.Left, iv.Label) // no room anywhere
	}
	return l
}

// variants returns the texts to try for a label: full, then short when
// it differs.
func variants(full, short string) []string {
	if short == "" || short == full {
		return []string{full}
	}
	return []string{full, short}
}

// firstWord returns s up to its first space: a fault's kind ("pause",
// "partition-oneway").
func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// fits reports whether b lies within the data area and clear of every
// label placed so far.
func (l *TimelineLayout) fits(b vg.Rectangle) bool {
	a := l.Area
	if b.Min.X < a.Min.X || b.Max.X > a.Max.X || b.Min.Y < a.Min.Y || b.Max.Y > a.Max.Y {
		return false
	}
	for _, o := range l.Labels {
		if overlaps(b, o.Box, labelRowGap) {
			return false
		}
	}
	return true
}

// overlaps reports whether a and b, each grown by gap/2 on every side,
// overlap.
func overlaps(a, b vg.Rectangle, gap vg.Length) bool {
	return a.Min.X < b.Max.X+gap && b.Min.X < a.Max.X+gap && a.Min.Y < b.Max.Y+gap && b.Min.Y < a.Max.Y+gap
}

// markCluster is a run of violations close in time, labelled once at
// the first one's time x (seconds).
type markCluster struct {
	x            float64
	label, short string
}

// markClusters groups tl's marks, in time order, into clusters whose
// neighbouring marks are less than markClusterGap of the axis apart and
// that span less than markClusterWidth of it. A
// cluster's label names each invariant once, in order of first
// appearance, with "×n" when it broke n > 1 times; short is its first
// name followed by "…" when there are more. Marks at the run's end past
// the axis, drawn at its right edge, are a cluster of their own,
// labelled with their time.
func markClusters(tl *Timeline, p *plot.Plot) []markCluster {
	marks := slices.Clone(tl.Marks)
	slices.SortStableFunc(marks, func(a, b Mark) int { return cmp.Compare(a.At, b.At) })
	gap := markClusterGap * (p.X.Max - p.X.Min)
	var out []markCluster
	var names []string
	count := map[string]int{}
	flush := func() {
		if len(names) == 0 {
			return
		}
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n
			if c := count[n]; c > 1 {
				parts[i] += " ×" + strconv.Itoa(c)
			}
		}
		c := &out[len(out)-1]
		c.label = strings.Join(parts, ", ")
		if len(parts) > 1 {
			c.short = parts[0] + " …"
		}
		names, count = nil, map[string]int{}
	}
	last, lastEdge := 0.0, false
	for i, m := range marks {
		x := min(float64(m.At)/1e9, p.X.Max)
		edge := m.At >= tl.End && float64(tl.End)/1e9 > p.X.Max // at the end, drawn at the right edge
		if i == 0 || x-last >= gap || x-out[len(out)-1].x >= markClusterWidth*(p.X.Max-p.X.Min) || edge != lastEdge {
			flush()
			out = append(out, markCluster{x: x})
		}
		last, lastEdge = x, edge
		name := m.Label
		if edge {
			name += fmt.Sprintf(" (at the end, %.3g s)", float64(m.At)/1e9)
		}
		if count[name] == 0 {
			names = append(names, name)
		}
		count[name]++
	}
	flush()
	return out
}

// labelBackground is drawn under each label so that lines crossing it
// do not hide its text.
var labelBackground = color.NRGBA{R: 255, G: 255, B: 255, A: 200}

// draw draws the labels on c where the layout put them.
func (l *TimelineLayout) draw(c draw.Canvas) {
	for _, lb := range l.Labels {
		c.SetColor(labelBackground)
		c.Fill(lb.Box.Path())
		c.FillText(lb.style, lb.at, lb.Text)
	}
}
