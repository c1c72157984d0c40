package plots

import (
	"math"
	"slices"

	"gonum.org/v1/plot"
)

// MaxCategoryLabel is the longest category label drawn on an axis, in
// characters; a longer value is drawn as its abbreviation ([Abbreviate])
// and given in full in the chart's footnote by the caller.
const MaxCategoryLabel = 14

// Abbreviate returns the axis labels for categories: the values
// themselves when every one is at most [MaxCategoryLabel] characters,
// else "v1", "v2", ... for all (so the labels stay one kind), and
// abbreviated true.
func Abbreviate(values []string) (labels []string, abbreviated bool) {
	if !slices.ContainsFunc(values, func(v string) bool { return len(v) > MaxCategoryLabel }) {
		return slices.Clone(values), false
	}
	labels = make([]string, len(values))
	for i := range values {
		labels[i] = "v" + itoa(i+1)
	}
	return labels, true
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// categoryTicks labels the integer positions 0..n-1 with the categories.
type categoryTicks []string

// Ticks implements plot.Ticker.
func (c categoryTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for i, l := range c {
		if x := float64(i); x >= lo && x <= hi {
			out = append(out, plot.Tick{Value: x, Label: l})
		}
	}
	return out
}

// dodge is series i's offset from its category's position, in category
// widths: the series of a categorical chart stand side by side close
// around the category (0.08 apart, within ±0.3 however many), in series
// order, so none hides another and each stays nearer its own category
// than any other.
func dodge(i, n int) float64 {
	if n < 2 {
		return 0
	}
	step := min(0.08, 0.6/float64(n-1))
	return step * (float64(i) - float64(n-1)/2)
}

// Coincident returns, for each series that has the same points as an
// earlier one (the same X, Y and interval, NaN matching NaN), the index
// of the first such series; -1 for the others. A line chart nudges such
// a series aside so that both stay visible, and the caller says so in
// its caption.
func (c *Chart) Coincident() []int {
	out := make([]int, len(c.Series))
	for i := range c.Series {
		out[i] = -1
		for j := range i {
			if out[j] == -1 && sameSeries(&c.Series[i], &c.Series[j]) {
				out[i] = j
				break
			}
		}
	}
	return out
}

func sameSeries(a, b *Series) bool {
	eq := func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(p, q float64) bool { return p == q || math.IsNaN(p) && math.IsNaN(q) })
	}
	return eq(a.X, b.X) && eq(a.Y, b.Y) && eq(a.Lo, b.Lo) && eq(a.Hi, b.Hi) && slices.ContainsFunc(a.Y, func(y float64) bool { return !math.IsNaN(y) })
}
