package sweep

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// rateNames are the rates a summary reports, in table order.
var rateNames = []string{"duplicate_rate", "reorder_rate", "lost_acked_rate", "fencing_rate"}

// Metrics lists what -crossing (and the refinement of an autoN axis)
// can follow: "violations", the fraction of runs with any violation; an
// invariant's name, the fraction of runs violating it; or a rate.
func Metrics() []string {
	return append(append([]string{"violations"}, Invariants...), rateNames...)
}

// CheckMetric returns an error naming the allowed metrics unless name is
// one.
func CheckMetric(name string) error {
	if slices.Contains(Metrics(), name) {
		return nil
	}
	return fmt.Errorf("%q is not a metric (allowed: %s)", name, strings.Join(Metrics(), ", "))
}

// metricOf returns a (point, mode)'s value of the metric with its 95%
// interval; ok is false when it has none (a rate with no denominator).
func metricOf(st *Stats, name string) (v, lo, hi float64, ok bool) {
	var p Prop
	switch {
	case name == "violations":
		p = st.AnyViolation
	case slices.Contains(rateNames, name):
		r := st.Rates[name]
		if r.Value == nil {
			return 0, 0, 0, false
		}
		v = *r.Value
		lo, hi = v, v
		if r.Lo != nil && r.Hi != nil {
			lo, hi = *r.Lo, *r.Hi
		}
		return v, lo, hi, true
	default:
		var found bool
		if p, found = st.Violations[name]; !found {
			p = wilson(0, st.Runs)
		}
	}
	if st.Runs == 0 {
		return 0, 0, 1, false
	}
	return p.Fraction, p.Lo, p.Hi, true
}

// metricLabel describes a metric for captions and axis labels.
func metricLabel(name string) string {
	switch {
	case name == "violations":
		return "fraction of runs with any violation"
	case slices.Contains(rateNames, name):
		return strings.ReplaceAll(name, "_", " ")
	}
	return "fraction of runs violating " + name
}

// CrossingLevel is the level whose crossing -crossing estimates.
const CrossingLevel = 0.5

// Crossing is where a metric crosses [CrossingLevel] along the first
// axis, per mode (and value of a second axis).
type Crossing struct {
	Metric string  `json:"metric"`
	Level  float64 `json:"level"`
	// Unit is the unit of At, Lo and Hi: the first axis's ("ms" for a
	// duration).
	Unit   string           `json:"unit,omitempty"`
	Series []CrossingSeries `json:"series"`
}

// CrossingSeries is one series' crossing. At is the linear interpolation
// between the two grid points on either side of the level's first
// crossing. [Lo, Hi] brackets it with grid points whose 95% intervals
// exclude the level: Lo is the last point before the crossing whose
// interval lies wholly below the level, Hi the first point after it
// whose interval lies wholly above (for a rising metric; mirrored for a
// falling one). Between grid points nothing is assumed, so the interval
// is as wide as the grid is coarse there: an autoN axis refines it.
// Censored says an end of the interval is the grid's end because no
// point's interval excludes the level on that side.
type CrossingSeries struct {
	Mode     string   `json:"mode"`
	Where    string   `json:"where,omitempty"` // a second axis's key=value
	Found    bool     `json:"found"`
	Rising   bool     `json:"rising,omitempty"`
	At       *float64 `json:"at"`
	Lo       *float64 `json:"lo"`
	Hi       *float64 `json:"hi"`
	Censored bool     `json:"censored,omitempty"`
	// Crossings counts the level's crossings along the axis; the first
	// is given.
	Crossings int    `json:"crossings"`
	Note      string `json:"note,omitempty"`
}

// crossingOf estimates where the series (xs ascending) crosses level.
func crossingOf(xs, ys, los, his []float64, level float64) CrossingSeries {
	var x, y, lo, hi []float64
	for i := range xs {
		if finite(ys[i]) {
			x, y, lo, hi = append(x, xs[i]), append(y, ys[i]), append(lo, los[i]), append(hi, his[i])
		}
	}
	out := CrossingSeries{}
	if len(x) == 0 {
		out.Note = "no data"
		return out
	}
	above := func(v float64) bool { return v >= level }
	first := -1
	for i := 1; i < len(y); i++ {
		if above(y[i]) != above(y[i-1]) {
			out.Crossings++
			if first < 0 {
				first = i - 1
			}
		}
	}
	if first < 0 {
		where := "below"
		if above(y[0]) {
			where = "at or above"
		}
		out.Note = fmt.Sprintf("stays %s %g over the whole axis", where, level)
		return out
	}
	out.Found = true
	out.Rising = y[first+1] > y[first]
	if !out.Rising {
		// Mirror a falling series into a rising one.
		neg := func(s []float64) []float64 {
			r := make([]float64, len(s))
			for i, v := range s {
				r[i] = -v
			}
			return r
		}
		y, lo, hi, level = neg(y), neg(hi), neg(lo), -level
	}
	interp := func(i int, v []float64) float64 {
		if v[i+1] == v[i] {
			return x[i]
		}
		return x[i] + (level-v[i])*(x[i+1]-x[i])/(v[i+1]-v[i])
	}
	at := interp(first, y)
	out.At = fp(at)
	l := x[0]
	out.Censored = true
	for j := first; j >= 0; j-- {
		if hi[j] < level {
			l, out.Censored = x[j], false
			break
		}
	}
	h := x[len(x)-1]
	cens := true
	for k := first + 1; k < len(x); k++ {
		if lo[k] > level {
			h, cens = x[k], false
			break
		}
	}
	out.Censored = out.Censored || cens
	out.Lo, out.Hi = fp(math.Min(l, at)), fp(math.Max(h, at))
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// crossing computes the summary's crossing of metric.
func (s *Summary) crossing(metric string) *Crossing {
	if len(s.Axes) == 0 {
		return nil
	}
	c := &Crossing{Metric: metric, Level: CrossingLevel, Unit: s.Axes[0].xUnit(), Series: []CrossingSeries{}}
	for _, ser := range s.series("", func(st *Stats) (v, lo, hi *float64) {
		a, b, d, ok := metricOf(st, metric)
		if !ok {
			return nil, nil, nil
		}
		return &a, &b, &d
	}) {
		cs := crossingOf(ser.X, ser.Y, ser.Lo, ser.Hi, CrossingLevel)
		cs.Mode, cs.Where = ser.mode, ser.where
		c.Series = append(c.Series, cs)
	}
	return c
}
