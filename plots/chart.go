package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a chart: points (X[i], Y[i]) and, if Lo and Hi
// are set, a 95% interval [Lo[i], Hi[i]] drawn as an error bar.
type Series struct {
	Label string
	X, Y  []float64
	// Lo and Hi are absolute interval bounds, the same length as Y, or
	// nil for no error bars.
	Lo, Hi []float64
}

// Chart is a line chart with optional error bars.
type Chart struct {
	// Title names the scenario and what is plotted.
	Title string
	// XLabel and YLabel name the axes, with units.
	XLabel, YLabel string
	// Footnote is printed under the chart, e.g. the seed range, the run
	// count and the simulator version; it may have several lines.
	Footnote string
	Series   []Series
	// LogX draws the X axis on a log scale (non-positive X are left out).
	LogX bool
	// Step draws each series as a step function (for a CDF).
	Step bool
	// YMin0 starts the Y axis at 0.
	YMin0 bool
	// XTicks, if set, are the X values to mark: the data's grid. Ticks
	// closer than a tenth of the axis to the last labelled one are drawn
	// unlabelled, so labels never overprint.
	XTicks []float64
	// Marks are X positions to point out, such as an estimated crossing:
	// a dotted vertical line at X over a shaded band from Lo to Hi, with
	// a label at the top.
	Marks []XMark
	// Categories, if set, makes the X axis categorical: X values are the
	// indices 0..len-1 of these labels ([Abbreviate] shortens long ones),
	// and each series is drawn as points with error bars, side by side
	// within each category and never joined by lines, since there is
	// nothing between two categories.
	Categories []string
}

// XMark is a position on the X axis with an interval.
type XMark struct {
	X, Lo, Hi float64
	Label     string
}

// Palette is the Okabe–Ito colour-blind-safe palette (Okabe and Ito,
// "Color Universal Design", 2008), without its yellow, which is too pale
// on white. Series keep distinct dash patterns as well, so charts also
// read in grey.
var Palette = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}, // blue
	color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF}, // vermillion
	color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}, // bluish green
	color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}, // reddish purple
	color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}, // orange
	color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}, // sky blue
	color.RGBA{R: 0x00, G: 0x00, B: 0x00, A: 0xFF}, // black
}

// PaletteColor returns series i's colour.
func PaletteColor(i int) color.Color { return Palette[i%len(Palette)] }

// Width and Height are the size of every chart; PNGs are drawn at DPI
// dots per inch, 1260 pixels wide, so the 9-point footnote is 25 pixels
// high.
const (
	Width  = 16 * vg.Centimeter
	Height = 11 * vg.Centimeter
	DPI    = 200
)

// FootnoteSize is the footnote's font size.
const FootnoteSize = 9

// NewCDF returns a chart of cumulative distributions: each series' X are
// values (increasing) and Y the fraction of observations at or below
// them, drawn as steps on a log X axis.
func NewCDF(title, xlabel, footnote string, series ...Series) *Chart {
	return &Chart{Title: title, XLabel: xlabel, YLabel: "fraction of records at or below (cumulative)",
		Footnote: footnote, Series: series, LogX: true, Step: true, YMin0: true}
}

// WriteTo draws the chart in format ("svg" or "png") to w.
func (c *Chart) WriteTo(w io.Writer, format string) error {
	if format != "svg" && format != "png" {
		return fmt.Errorf("plots: unsupported format %q (allowed: png, svg)", format)
	}
	l, err := c.layout()
	if err != nil {
		return err
	}
	h := Height + l.legendH + l.footH
	var cv vg.CanvasWriterTo
	if format == "png" {
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(Width, h), vgimg.UseDPI(DPI))}
	} else {
		cv = vgsvg.New(Width, h)
	}
	l.draw(draw.New(cv))
	_, err = cv.WriteTo(w)
	return err
}

// Save draws the chart to path; the extension (.svg or .png) picks the
// format.
func (c *Chart) Save(path string) (err error) {
	format := strings.TrimPrefix(filepath.Ext(path), ".")
	if format != "svg" && format != "png" {
		return fmt.Errorf("plots: unsupported format %q (allowed: png, svg)", format)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return c.WriteTo(f, format)
}

// errPoints gives plotter.NewYErrorBars points and their error distances.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// layout is a chart built and measured, ready to draw.
type layout struct {
	p              *plot.Plot
	legend         plot.Legend
	foot           text.Style
	footnote       string
	legendH, footH vg.Length
}

func (c *Chart) layout() (*layout, error) {
	p := plot.New()
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = vg.Points(9)
	leg.Top, leg.Left = true, true
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.Title.Text = wrapTitle(c.Title, MaxTitleLine)
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Add(plotter.NewGrid())
	switch {
	case c.Categories != nil:
		p.X.Tick.Marker = categoryTicks(c.Categories)
		p.X.Min, p.X.Max = -0.5, float64(len(c.Categories))-0.5
	case c.LogX:
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	case len(c.XTicks) > 0:
		p.X.Tick.Marker = gridTicks(c.XTicks)
	}
	same := c.Coincident()
	// nudge is how far a coincident series of a line chart moves aside:
	// 1.5% of the X range per earlier copy, so both stay visible.
	nudge := 0.0
	if c.Categories == nil && !c.LogX {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range c.Series {
			for _, x := range s.X {
				if finite(x) {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
		}
		if hi > lo {
			nudge = 0.015 * (hi - lo)
		}
	}
	if c.YMin0 {
		p.Y.Min = 0
	}
	for i, s := range c.Series {
		var xys plotter.XYs
		var errs plotter.YErrors
		bars := s.Lo != nil && s.Hi != nil
		shift := 0.0
		switch {
		case c.Categories != nil:
			shift = dodge(i, len(c.Series))
		case same[i] >= 0:
			copies := 0
			for k := range i {
				if same[k] == same[i] {
					copies++
				}
			}
			shift = nudge * float64(copies+1)
		}
		for j := range s.X {
			x, y := s.X[j]+shift, s.Y[j]
			if !finite(x, y) || c.LogX && x <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			if bars {
				lo, hi := s.Lo[j], s.Hi[j]
				if !finite(lo, hi) {
					lo, hi = y, y
				}
				errs = append(errs, struct{ Low, High float64 }{y - lo, hi - y})
			}
		}
		if len(xys) == 0 {
			continue
		}
		col := PaletteColor(i)
		dashes := plotutil.Dashes(i)
		if c.Step {
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			l.StepStyle = plotter.PostStep
			l.Color, l.Dashes, l.Width = col, dashes, vg.Points(1.5)
			p.Add(l)
			leg.Add(s.Label, l)
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes, l.Width = col, dashes, vg.Points(1.5)
		pts.Color, pts.Shape = col, plotutil.Shape(i)
		if c.Categories != nil {
			// Points and bars only: no line between categories.
			pts.Radius = vg.Points(3)
			p.Add(pts)
		} else {
			p.Add(l, pts)
		}
		if bars {
			eb, err := plotter.NewYErrorBars(errPoints{xys, errs})
			if err != nil {
				return nil, err
			}
			eb.Color = col
			eb.LineStyle.Width = vg.Points(1)
			p.Add(eb)
		}
		if c.Categories != nil {
			leg.Add(s.Label, pts)
		} else {
			leg.Add(s.Label, l, pts)
		}
	}

	if !c.Step && p.Y.Max > p.Y.Min {
		// Headroom, so that the highest error bar's cap is not cut by
		// the frame.
		p.Y.Max += 0.04 * (p.Y.Max - p.Y.Min)
	}
	if len(c.Marks) > 0 {
		p.Add(&markPlotter{marks: c.Marks, font: leg.TextStyle})
	}

	if c.LogX {
		// A log axis needs a positive, non-degenerate range.
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range c.Series {
			for _, x := range s.X {
				if finite(x) && x > 0 {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
		}
		switch {
		case lo > hi:
			lo, hi = 1, 10
		case lo == hi:
			lo, hi = lo/2, hi*2
		}
		p.X.Min, p.X.Max = lo, hi
	}

	foot := text.Style{
		Color:   color.Gray{Y: 64},
		Font:    p.X.Label.TextStyle.Font,
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: p.X.Label.TextStyle.Handler,
	}
	foot.Font.Size = vg.Points(FootnoteSize)
	l := &layout{p: p, legend: leg, foot: foot, footnote: c.Footnote}
	if c.Footnote != "" {
		l.footH = foot.Height(c.Footnote) + vg.Points(6)
	}
	if r := leg.Rectangle(draw.Canvas{}); r.Size().Y > 0 {
		l.legendH = r.Size().Y + vg.Points(8)
	}
	return l, nil
}

// draw draws the plot, then the legend under it, then the footnote.
func (l *layout) draw(dc draw.Canvas) {
	white := draw.Crop(dc, 0, 0, 0, 0)
	white.SetColor(color.White)
	white.Fill(white.Rectangle.Path())
	l.p.Draw(draw.Crop(dc, vg.Points(4), -vg.Points(8), l.footH+l.legendH, -vg.Points(4)))
	if l.legendH > 0 {
		lc := draw.Crop(dc, vg.Points(40), 0, l.footH, 0)
		lc.Max.Y = lc.Min.Y + l.legendH - vg.Points(4)
		l.legend.Draw(lc)
	}
	if l.footnote != "" {
		dc.FillText(l.foot, vg.Point{X: dc.Min.X + vg.Points(6), Y: dc.Min.Y + vg.Points(3)}, l.footnote)
	}
}

// Data returns the chart's data as text, one line per point, for golden
// tests: the data is the more robust thing to compare than the picture.
func (c *Chart) Data() string {
	var b strings.Builder
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	fmt.Fprintf(&b, "title: %s\nx: %s\ny: %s\nfootnote: %s\n", c.Title, c.XLabel, c.YLabel, strings.ReplaceAll(c.Footnote, "\n", " | "))
	if c.Categories != nil {
		fmt.Fprintf(&b, "categories: %q\ndrawn: points side by side, no lines\n", c.Categories)
	}
	for _, m := range c.Marks {
		fmt.Fprintf(&b, "mark %s [%s, %s] %q\n", f(m.X), f(m.Lo), f(m.Hi), m.Label)
	}
	for _, s := range c.Series {
		fmt.Fprintf(&b, "series %q\n", s.Label)
		for j := range s.X {
			fmt.Fprintf(&b, "  %s %s", f(s.X[j]), f(s.Y[j]))
			if s.Lo != nil && s.Hi != nil {
				fmt.Fprintf(&b, " [%s, %s]", f(s.Lo[j]), f(s.Hi[j]))
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// gridTicks marks the data's X values; a value closer than a tenth of the
// range to the last labelled one is an unlabelled tick.
type gridTicks []float64

// Ticks implements plot.Ticker.
func (g gridTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	last := math.Inf(-1)
	gap := (hi - lo) / 10
	for _, x := range g {
		if x < lo || x > hi {
			continue
		}
		t := plot.Tick{Value: x}
		if x-last >= gap {
			t.Label = strconv.FormatFloat(x, 'g', -1, 64)
			last = x
		}
		out = append(out, t)
	}
	return out
}

// logTicks labels 1, 2 and 5 of every decade (only powers of ten when
// the axis spans more than four decades), with unlabelled ticks at the
// other integers.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	wide := math.Log10(hi/lo) > 4
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		dec := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			x := float64(m) * dec
			if x < lo*(1-1e-9) || x > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: x}
			if m == 1 || !wide && (m == 2 || m == 5) {
				t.Label = strconv.FormatFloat(x, 'g', 6, 64)
			}
			out = append(out, t)
		}
	}
	return out
}

// markPlotter draws [XMark]s over the plot's full height.
type markPlotter struct {
	marks []XMark
	font  text.Style
}

var (
	markBand = color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0x40}
	markLine = color.Gray{Y: 60}
)

// Plot implements plot.Plotter.
func (m *markPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	for i, mk := range m.marks {
		if !finite(mk.X, mk.Lo, mk.Hi) {
			continue
		}
		lo, hi := trX(mk.Lo), trX(mk.Hi)
		if hi-lo < vg.Points(1) {
			mid := (lo + hi) / 2
			lo, hi = mid-vg.Points(0.5), mid+vg.Points(0.5)
		}
		var band vg.Path
		band.Move(vg.Point{X: lo, Y: c.Min.Y})
		band.Line(vg.Point{X: hi, Y: c.Min.Y})
		band.Line(vg.Point{X: hi, Y: c.Max.Y})
		band.Line(vg.Point{X: lo, Y: c.Max.Y})
		band.Close()
		c.SetColor(markBand)
		c.Fill(band)
		x := trX(mk.X)
		c.StrokeLine2(draw.LineStyle{Color: markLine, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}, x, c.Min.Y, x, c.Max.Y)
		if mk.Label != "" {
			st := m.font
			st.Color = markLine
			st.XAlign, st.YAlign = draw.XLeft, draw.YTop
			at := vg.Point{X: hi + vg.Points(3), Y: c.Max.Y - vg.Points(14)*vg.Length(i+1)}
			if x > c.Min.X+0.6*(c.Max.X-c.Min.X) {
				st.XAlign = draw.XRight
				at.X = lo - vg.Points(3)
			}
			c.FillText(st, at, mk.Label)
		}
	}
}

// MaxTitleLine is the longest title line, in characters, that fits the
// chart's width at the title's size; a longer title breaks at spaces.
const MaxTitleLine = 84

// wrapTitle breaks title at spaces into lines of at most width
// characters (a longer word stays whole).
func wrapTitle(title string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(title) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > width:
			lines = append(lines, line)
			line = w
		default:
			line += " " + w
		}
	}
	return strings.Join(append(lines, line), "\n")
}
