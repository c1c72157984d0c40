package plots

import (
	"cmp"
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
	// End is the run's end; the x axis runs from 0 to End.
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
	timelineWidth  = 10 * vg.Inch
	legendWidth    = 1.8 * vg.Inch
	TimelineDPI    = 150
	markClusterGap = 0.03 // marks closer than this fraction of the axis share a label
)

// SaveTimeline draws tl into file, whose extension (.svg or .png) picks
// the format: the swim lanes, and a legend to their right.
func SaveTimeline(tl *Timeline, file string) (err error) {
	ext := strings.ToLower(filepath.Ext(file))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("%s: extension %q is not allowed (allowed: %s)", file, ext, strings.Join(Formats, ", "))
	}
	p, err := TimelinePlot(tl)
	if err != nil {
		return err
	}
	h := max(vg.Length(1+len(tl.Lanes))*0.6*vg.Inch, 3.2*vg.Inch)
	w := timelineWidth + legendWidth
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
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	leg := timelineLegend(p)
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
// application traffic, faults and violations.
func timelineLegend(p *plot.Plot) plot.Legend {
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
	return leg
}

// y returns lane i's height: the first lane on top.
func (tl *Timeline) y(lane int) float64 { return float64(len(tl.Lanes) - 1 - lane) }

// span returns the stretch of time the axis shows: from the first event
// to the last, with a margin, leaving out the idle time before a run's
// end (marks at the end are drawn at the right edge, labelled with
// their time).
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
		see(iv.From, iv.To)
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

// TimelinePlot builds the swim-lane plot of tl (without the legend,
// which [SaveTimeline] draws beside it).
func TimelinePlot(tl *Timeline) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = tl.Title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = "simulated time (s)"
	p.X.Min, p.X.Max = tl.span()
	if end := float64(tl.End) / 1e9; end > p.X.Max {
		p.X.Label.Text += fmt.Sprintf("; the run ends at %.3g s (idle after the last event)", end)
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
			return nil, err
		}
		poly.Color = faultColor
		poly.LineStyle.Width = 0
		p.Add(poly)
		if iv.Label != "" {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: from, Y: y + 0.2}}, Labels: []string{iv.Label}})
			if err != nil {
				return nil, err
			}
			lb.TextStyle[0].Font.Size = vg.Points(9)
			p.Add(lb)
		}
	}
	for i := range tl.Lanes {
		ln, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: tl.y(i)}, {X: p.X.Max, Y: tl.y(i)}})
		if err != nil {
			return nil, err
		}
		ln.Color = color.Gray{Y: 200}
		p.Add(ln)
	}
	arrows := &arrowPlotter{}
	for _, a := range tl.Arrows {
		from, to := plotter.XY{X: sec(a.Sent), Y: tl.y(a.From)}, plotter.XY{X: sec(a.At), Y: tl.y(a.To)}
		ar := arrowLine{from: from, to: to, color: deliveredColor, head: !a.Faint}
		if a.Faint {
			ar.color = faintColor
		}
		if a.Lost {
			// A lost message stops halfway, at a cross.
			ar.to = plotter.XY{X: (from.X + to.X) / 2, Y: (from.Y + to.Y) / 2}
			if a.At == a.Sent {
				ar.to.X += 0.002 * (p.X.Max - p.X.Min)
			}
			ar.color, ar.lost, ar.head = lostColor, true, false
		}
		arrows.lines = append(arrows.lines, ar)
	}
	p.Add(arrows)
	if err := addMarks(p, tl); err != nil {
		return nil, err
	}
	// Adding plotters widens the axes to their data; keep the span.
	p.X.Min, p.X.Max = tl.span()
	p.Y.Min, p.Y.Max = -0.6, float64(len(tl.Lanes))-0.4
	return p, nil
}

// addMarks draws the violations: a line at each distinct time and one
// label per cluster of nearby marks, listing their names once, in rows
// that alternate so neighbouring clusters do not overprint.
func addMarks(p *plot.Plot, tl *Timeline) error {
	type cluster struct {
		x      float64
		labels []string
	}
	marks := slices.Clone(tl.Marks)
	slices.SortStableFunc(marks, func(a, b Mark) int { return cmp.Compare(a.At, b.At) })
	var cs []*cluster
	gap := markClusterGap * (p.X.Max - p.X.Min)
	var drawn []float64
	for _, m := range marks {
		x := min(float64(m.At)/1e9, p.X.Max)
		if !slices.Contains(drawn, x) {
			drawn = append(drawn, x)
			ln, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
			if err != nil {
				return err
			}
			ln.Color = violationColor
			ln.Width = vg.Points(1.5)
			p.Add(ln)
		}
		label := m.Label
		if m.At >= tl.End && float64(tl.End)/1e9 > p.X.Max {
			label += fmt.Sprintf(" (at the end, %.3g s)", float64(m.At)/1e9)
		}
		if n := len(cs); n > 0 && x-cs[n-1].x < gap {
			if !slices.Contains(cs[n-1].labels, label) {
				cs[n-1].labels = append(cs[n-1].labels, label)
			}
			continue
		}
		cs = append(cs, &cluster{x: x, labels: []string{label}})
	}
	for i, c := range cs {
		y := p.Y.Max - 0.15 - 0.3*float64(i%3)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: c.x, Y: y}}, Labels: []string{strings.Join(c.labels, ", ")}})
		if err != nil {
			return err
		}
		ts := &lb.TextStyle[0]
		ts.Color = violationColor
		ts.Font.Size = vg.Points(9)
		ts.XAlign = draw.XLeft
		lb.Offset = vg.Point{X: vg.Points(3)}
		if c.x > p.X.Min+0.7*(p.X.Max-p.X.Min) {
			ts.XAlign = draw.XRight // near the right edge: label to the left
			lb.Offset = vg.Point{X: -vg.Points(3)}
		}
		p.Add(lb)
	}
	return nil
}

// arrowLine is one message on the canvas.
type arrowLine struct {
	from, to   plotter.XY
	color      color.Color
	lost, head bool
}

// arrowPlotter draws messages with arrowheads (and crosses for lost
// ones) in canvas coordinates, so heads keep their shape whatever the
// axes' scales.
type arrowPlotter struct{ lines []arrowLine }

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
		case l.lost:
			c.DrawGlyph(draw.GlyphStyle{Color: lostColor, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}, to)
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
