package plots

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/idemsim/idemsim/sim"
)

// Timeline is a run drawn as swim lanes: one lane per process, message
// arrows between lanes, fault intervals shaded on their lanes and
// violations as marks. It is plain data; the caller fills it from a run's
// event log.
type Timeline struct {
	Title string
	// Lanes are the processes, top to bottom (e.g. app0, p1, p2, b1, c1).
	Lanes     []string
	Arrows    []Arrow
	Intervals []Interval
	Marks     []Mark
	// End is the run's end. The x axis covers the events, which may end
	// well before it (see span).
	End sim.Time
}

// Arrow is one message from lane From to lane To, sent at Sent and
// arrived (or, if Lost, lost) at At.
type Arrow struct {
	From, To int
	Sent, At sim.Time
	Lost     bool
	// Faint draws the arrow light: traffic between an application and
	// its producer.
	Faint bool
}

// Interval is a fault in effect on a lane from From to To, e.g. a pause.
// An interval with To at or after the timeline's End was still in effect
// when the run ended: it runs off the right edge of the axis, which it does
// not stretch.
type Interval struct {
	Lane     int
	From, To sim.Time
	Label    string
}

// Mark is an instant event on a lane: a violation, drawn in red.
type Mark struct {
	Lane  int
	At    sim.Time
	Label string
}

// Formats are the file extensions [SaveTimeline] writes.
var Formats = []string{".svg", ".png"}

// Timeline drawing sizes: the plot area, the legend column to its right
// and the PNG resolution (the PNG is TimelineDPI × 11.8 in wide).
const (
	timelineWidth = 10 * vg.Inch
	legendWidth   = 1.8 * vg.Inch
	TimelineDPI   = 150
	// Violations closer than markClusterGap of the axis to the previous
	// one share its label, within markClusterWidth of the axis.
	markClusterGap   = 0.03
	markClusterWidth = 0.15
)

// timelineSize returns the drawing's width and height: the plot area and
// the legend column, 0.6 in per lane and at least 3.2 in high.
func timelineSize(tl *Timeline) (w, h vg.Length) {
	return timelineWidth + legendWidth, max(vg.Length(1+len(tl.Lanes))*0.6*vg.Inch, 3.2*vg.Inch)
}

// plotArea returns the part of the drawing the swim lanes take, left of
// the legend.
func plotArea(dc draw.Canvas) draw.Canvas { return draw.Crop(dc, 0, -legendWidth, 0, 0) }

// SaveTimeline draws tl into file, whose extension (.svg or .png) picks
// the format: the swim lanes with their labels ([LayoutTimeline]), and a
// legend to their right.
func SaveTimeline(tl *Timeline, file string) (err error) {
	ext := strings.ToLower(filepath.Ext(file))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("%s: extension %q is not allowed (allowed: %s)", file, ext, strings.Join(Formats, ", "))
	}
	p, labels, err := timelinePlot(tl)
	if err != nil {
		return err
	}
	w, h := timelineSize(tl)
	var cv vg.CanvasWriterTo
	if ext == ".png" {
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(TimelineDPI))}
	} else {
		cv = vgsvg.New(w, h)
	}
	dc := draw.New(cv)
	white := draw.Crop(dc, 0, 0, 0, 0)
	white.SetColor(color.White)
	white.Fill(white.Rectangle.Path())
	p.Draw(plotArea(dc))
	leg := timelineLegend(p, len(labels.layout.Left))
	lc := draw.Crop(dc, timelineWidth+vg.Points(6), 0, 0, -vg.Points(24))
	leg.Draw(lc)
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = cv.WriteTo(f)
	return err
}

var (
	deliveredColor = color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 255} // Okabe–Ito blue
	lostColor      = color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 255} // Okabe–Ito vermillion
	faintColor     = color.Gray{Y: 190}
	faultColor     = color.NRGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 110} // Okabe–Ito orange, translucent
	violationColor = color.RGBA{R: 0xCC, G: 0x00, B: 0x33, A: 255}
)

// timelineLegend explains the marks: delivered and lost messages,
// application traffic, faults and violations; and says how many labels
// found no room (left, 0 for none).
func timelineLegend(p *plot.Plot, left int) plot.Legend {
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(9)
	line := func(c color.Color, w vg.Length, dashes []vg.Length) *plotter.Line {
		return &plotter.Line{LineStyle: draw.LineStyle{Color: c, Width: w, Dashes: dashes}}
	}
	leg.Add("message →", line(deliveredColor, vg.Points(1), nil))
	leg.Add("message lost ×", line(lostColor, vg.Points(1), []vg.Length{vg.Points(2), vg.Points(2)}))
	leg.Add("app ↔ producer", line(faintColor, vg.Points(1), nil))
	leg.Add("fault in effect", &plotter.Polygon{Color: faultColor})
	leg.Add("violation found", line(violationColor, vg.Points(1.5), nil))
	if left > 0 {
		leg.Add(fmt.Sprintf("(%d %s left out: no room)", left, map[bool]string{true: "label", false: "labels"}[left == 1]), noThumbnail{})
	}
	return leg
}

// y returns lane i's height: the first lane on top.
func (tl *Timeline) y(lane int) float64 { return float64(len(tl.Lanes) - 1 - lane) }

// noThumbnail is a legend entry without a symbol: a note.
type noThumbnail struct{}

// Thumbnail implements plot.Thumbnailer.
func (noThumbnail) Thumbnail(*draw.Canvas) {}

// span returns the stretch of time the axis shows: from the first event
// to the last, with a margin of 3% of that stretch, leaving out the idle
// time before a run's end. Events are messages (sent and arrived or
// lost), the starts of faults, their ends before the run's end, and marks
// before the run's end. Faults still in effect at the end run off the
// right edge; marks at the end are drawn there, labelled with their time.
func (tl *Timeline) span() (lo, hi float64) {
	sec := func(t sim.Time) float64 { return float64(t) / 1e9 }
	lo, hi = math.Inf(1), math.Inf(-1)
	see := func(ts ...sim.Time) {
		for _, t := range ts {
			lo, hi = min(lo, sec(t)), max(hi, sec(t))
		}
	}
	for _, a := range tl.Arrows {
		see(a.Sent, a.At)
	}
	for _, iv := range tl.Intervals {
		see(iv.From)
		if iv.To < tl.End {
			see(iv.To)
		}
	}
	for _, m := range tl.Marks {
		if m.At < tl.End {
			see(m.At)
		}
	}
	end := sec(tl.End)
	if lo > hi {
		return 0, max(end, 1e-3)
	}
	if hi < end && len(tl.Marks) > 0 && tl.Marks[len(tl.Marks)-1].At >= tl.End && end-hi < 0.1*(hi-lo) {
		hi = end // the end is close: show it
	}
	if hi <= lo {
		hi = lo + 1e-3
	}
	pad := 0.03 * (hi - lo)
	lo = max(0, lo-pad)
	if lo < 0.15*(hi-lo) {
		lo = 0
	}
	return lo, hi + pad
}

// TimelinePlot builds the swim-lane plot of tl, labels included
// ([LayoutTimeline]), without the legend, which [SaveTimeline] draws
// beside it.
func TimelinePlot(tl *Timeline) (*plot.Plot, error) {
	p, _, err := timelinePlot(tl)
	return p, err
}

// timelinePlot builds the plot of tl and returns it with its labels'
// plotter, which holds their layout once the plot is drawn. Layers, from
// the bottom: faults, lanes, messages, violations, labels, and the
// crosses of lost messages, which no label hides.
func timelinePlot(tl *Timeline) (*plot.Plot, *labelPlotter, error) {
	p := plot.New()
	p.Title.Text = tl.Title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = "simulated time (s)"
	p.X.Min, p.X.Max = tl.span()
	if end := float64(tl.End) / 1e9; end > p.X.Max {
		p.X.Label.Text += fmt.Sprintf("; the run ends at %.3g s (idle after the last event", end)
		if slices.ContainsFunc(tl.Intervals, func(iv Interval) bool { return iv.To >= tl.End }) {
			p.X.Label.Text += "; faults reaching the right edge last until then"
		}
		p.X.Label.Text += ")"
	}
	p.Y.Min, p.Y.Max = -0.6, float64(len(tl.Lanes))-0.4
	names := make([]string, len(tl.Lanes))
	for i, l := range tl.Lanes {
		names[len(tl.Lanes)-1-i] = l
	}
	p.NominalY(names...)
	p.Y.Padding = 0
	sec := func(t sim.Time) float64 { return min(float64(t)/1e9, p.X.Max) }
	for _, iv := range tl.Intervals {
		y := tl.y(iv.Lane)
		from, to := max(sec(iv.From), p.X.Min), sec(iv.To)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: from, Y: y - 0.35}, {X: to, Y: y - 0.35}, {X: to, Y: y + 0.35}, {X: from, Y: y + 0.35}})
		if err != nil {
			return nil, nil, err
		}
		poly.Color = faultColor
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	for i := range tl.Lanes {
		ln, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: tl.y(i)}, {X: p.X.Max, Y: tl.y(i)}})
		if err != nil {
			return nil, nil, err
		}
		ln.Color = color.Gray{Y: 200}
		p.Add(ln)
	}
	arrows := &arrowPlotter{}
	for _, a := range tl.Arrows {
		arrows.lines = append(arrows.lines, tl.arrowLine(a, p.X.Max))
	}
	p.Add(arrows)
	if err := addMarks(p, tl); err != nil {
		return nil, nil, err
	}
	labels := &labelPlotter{tl: tl}
	p.Add(labels, crossPlotter{arrows})
	// Adding plotters widens the axes to their data; keep the span.
	p.X.Min, p.X.Max = tl.span()
	p.Y.Min, p.Y.Max = -0.6, float64(len(tl.Lanes))-0.4
	return p, labels, nil
}

// addMarks draws the violations: a line at each distinct time (their
// labels are placed with the others, [LayoutTimeline]).
func addMarks(p *plot.Plot, tl *Timeline) error {
	var drawn []float64
	for _, m := range tl.Marks {
		x := min(float64(m.At)/1e9, p.X.Max)
		if slices.Contains(drawn, x) {
			continue
		}
		drawn = append(drawn, x)
		ln, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
		if err != nil {
			return err
		}
		ln.Color = violationColor
		ln.Width = vg.Points(1.5)
		p.Add(ln)
	}
	return nil
}

// lostShort is how far, in lanes, a lost message's line stops short of
// its destination's lane: never on a lane, always nearer the destination
// than any other lane, so it reads as "towards To, not arrived".
const lostShort = 0.3

// arrowLine returns the line that draws a, in data coordinates (seconds,
// lane heights), with times past xmax drawn at xmax. A delivered message
// runs from its sender's lane at Sent to its receiver's lane at At; a lost
// one from its sender's lane at Sent towards its receiver's lane, ending
// lostShort lanes before it at At, the time it was lost, in a cross.
func (tl *Timeline) arrowLine(a Arrow, xmax float64) arrowLine {
	sec := func(t sim.Time) float64 { return min(float64(t)/1e9, xmax) }
	from, to := plotter.XY{X: sec(a.Sent), Y: tl.y(a.From)}, plotter.XY{X: sec(a.At), Y: tl.y(a.To)}
	ar := arrowLine{from: from, to: to, color: deliveredColor, head: !a.Faint}
	if a.Faint {
		ar.color = faintColor
	}
	if a.Lost {
		switch {
		case to.Y < from.Y:
			ar.to.Y += lostShort
		case to.Y > from.Y:
			ar.to.Y -= lostShort
		}
		ar.color, ar.lost, ar.head = lostColor, true, false
	}
	return ar
}

// arrowLine is one message on the canvas.
type arrowLine struct {
	from, to   plotter.XY
	color      color.Color
	lost, head bool
}

// arrowPlotter draws messages with arrowheads in canvas coordinates, so
// heads keep their shape whatever the axes' scales.
type arrowPlotter struct{ lines []arrowLine }

// crossPlotter draws the crosses that end lost messages' lines.
type crossPlotter struct{ a *arrowPlotter }

// Plot implements plot.Plotter.
func (x crossPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for _, l := range x.a.lines {
		if l.lost {
			c.DrawGlyph(draw.GlyphStyle{Color: lostColor, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}, vg.Point{X: trX(l.to.X), Y: trY(l.to.Y)})
		}
	}
}

// Plot implements plot.Plotter.
func (a *arrowPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for _, l := range a.lines {
		from := vg.Point{X: trX(l.from.X), Y: trY(l.from.Y)}
		to := vg.Point{X: trX(l.to.X), Y: trY(l.to.Y)}
		st := draw.LineStyle{Color: l.color, Width: vg.Points(1)}
		if l.lost {
			st.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		}
		c.StrokeLine2(st, from.X, from.Y, to.X, to.Y)
		switch {
		case l.head:
			dx, dy := float64(to.X-from.X), float64(to.Y-from.Y)
			n := math.Hypot(dx, dy)
			if n == 0 {
				continue
			}
			ux, uy := dx/n, dy/n
			size := 5.0 // points
			back := vg.Point{X: to.X - vg.Length(ux*size), Y: to.Y - vg.Length(uy*size)}
			px, py := vg.Length(-uy*size*0.45), vg.Length(ux*size*0.45)
			var head vg.Path
			head.Move(to)
			head.Line(vg.Point{X: back.X + px, Y: back.Y + py})
			head.Line(vg.Point{X: back.X - px, Y: back.Y - py})
			head.Close()
			c.SetColor(l.color)
			c.Fill(head)
		}
	}
}

// DataRange implements plot.DataRanger.
func (a *arrowPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, l := range a.lines {
		xmin, xmax = min(xmin, l.from.X, l.to.X), max(xmax, l.from.X, l.to.X)
		ymin, ymax = min(ymin, l.from.Y, l.to.Y), max(ymax, l.from.Y, l.to.Y)
	}
	return
}
