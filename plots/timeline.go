package plots

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

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

// SaveTimeline draws tl into file, whose extension (.svg or .png) picks
// the format.
func SaveTimeline(tl *Timeline, file string) error {
	ext := strings.ToLower(filepath.Ext(file))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("%s: extension %q is not allowed (allowed: %s)", file, ext, strings.Join(Formats, ", "))
	}
	p, err := TimelinePlot(tl)
	if err != nil {
		return err
	}
	h := vg.Length(1+len(tl.Lanes)) * 0.6 * vg.Inch
	return p.Save(10*vg.Inch, max(h, 3*vg.Inch), file)
}

var (
	deliveredColor = color.RGBA{R: 40, G: 90, B: 160, A: 255}
	lostColor      = color.RGBA{R: 200, G: 30, B: 30, A: 255}
	faintColor     = color.Gray{Y: 215}
	faultColor     = color.NRGBA{R: 250, G: 170, B: 40, A: 120}
)

// y returns lane i's height: the first lane on top.
func (tl *Timeline) y(lane int) float64 { return float64(len(tl.Lanes) - 1 - lane) }

// TimelinePlot builds the swim-lane plot of tl.
func TimelinePlot(tl *Timeline) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = tl.Title
	p.X.Label.Text = "simulated time (s)"
	p.X.Min, p.X.Max = 0, max(float64(tl.End)/1e9, 1e-3)
	p.Y.Min, p.Y.Max = -0.6, float64(len(tl.Lanes))-0.4
	names := make([]string, len(tl.Lanes))
	for i, l := range tl.Lanes {
		names[len(tl.Lanes)-1-i] = l
	}
	p.NominalY(names...)
	p.Y.Padding = 0
	sec := func(t sim.Time) float64 { return float64(t) / 1e9 }
	for _, iv := range tl.Intervals {
		y := tl.y(iv.Lane)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: sec(iv.From), Y: y - 0.35}, {X: sec(iv.To), Y: y - 0.35}, {X: sec(iv.To), Y: y + 0.35}, {X: sec(iv.From), Y: y + 0.35}})
		if err != nil {
			return nil, err
		}
		poly.Color = faultColor
		poly.LineStyle.Width = 0
		p.Add(poly)
		if iv.Label != "" {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: sec(iv.From), Y: y + 0.2}}, Labels: []string{iv.Label}})
			if err != nil {
				return nil, err
			}
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
	var lostEnds plotter.XYs
	for _, a := range tl.Arrows {
		from, to := plotter.XY{X: sec(a.Sent), Y: tl.y(a.From)}, plotter.XY{X: sec(a.At), Y: tl.y(a.To)}
		if a.Lost {
			// A lost message stops halfway, at a cross.
			to = plotter.XY{X: (from.X + to.X) / 2, Y: (from.Y + to.Y) / 2}
			if a.At == a.Sent {
				to.X += 0.002 * (p.X.Max - p.X.Min)
			}
			lostEnds = append(lostEnds, to)
		}
		ln, err := plotter.NewLine(plotter.XYs{from, to})
		if err != nil {
			return nil, err
		}
		ln.Color = deliveredColor
		if a.Faint {
			ln.Color = faintColor
		}
		if a.Lost {
			ln.Color = lostColor
			ln.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		}
		p.Add(ln)
	}
	if len(lostEnds) > 0 {
		sc, err := plotter.NewScatter(lostEnds)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: lostColor, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
		p.Add(sc)
	}
	for i, m := range tl.Marks {
		x := sec(m.At)
		stack := 0 // marks at the same time stack their labels
		for _, o := range tl.Marks[:i] {
			if o.At == m.At {
				stack++
			}
		}
		ln, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		ln.Color = lostColor
		ln.Width = vg.Points(1.5)
		p.Add(ln)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: tl.y(m.Lane) - 0.3 - 0.25*float64(stack)}}, Labels: []string{m.Label}})
		if err != nil {
			return nil, err
		}
		lb.TextStyle[0].Color = lostColor
		p.Add(lb)
	}
	p.Legend.Top = true
	return p, nil
}
