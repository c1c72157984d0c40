package validate

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Statistics of a comparison. Each side's rate is a ratio estimator
// Σx/Σy over runs (as in sweeps, docs/sweeps.md) with its standard error
// from the delta method clustered by run. The two sides are compared with
// an equivalence test: two one-sided tests (TOST) of |real − sim| ≥
// margin at α = 0.05 each, that is, the difference's 90% interval must
// lie inside (−margin, margin).

var (
	z95 = distuv.UnitNormal.Quantile(0.975) // two-sided 95%
	z90 = distuv.UnitNormal.Quantile(0.95)  // two-sided 90%, one-sided 95%
)

// zeroBound is the one-sided 95% upper bound of a Poisson count whose
// observed value is 0 (−ln 0.05 ≈ 3, the rule of three): a side that saw
// no event in any run gets zeroBound/Σy as its upper bound, where the
// delta method would give the degenerate interval [0, 0].
var zeroBound = -math.Log(0.05)

// MinRuns is the fewest runs per side for a verdict other than
// inconclusive.
const MinRuns = 10

// pair accumulates one ratio's per-run observations (x, y).
type pair struct {
	n                     int64
	sx, sy, sxx, syy, sxy float64
	num, den              int64
}

func (p *pair) add(x, y int64) {
	p.n++
	p.num += x
	p.den += y
	fx, fy := float64(x), float64(y)
	p.sx += fx
	p.sy += fy
	p.sxx += fx * fx
	p.syy += fy * fy
	p.sxy += fx * fy
}

// Estimate is one side's rate with its 95% interval.
type Estimate struct {
	Runs  int64    `json:"runs"`
	Num   int64    `json:"num"`
	Den   int64    `json:"den"`
	Value *float64 `json:"value"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
	// SE is the standard error used by the comparison (for a rate that
	// is 0 in every run, the Poisson bound's equivalent; see zeroBound).
	SE float64 `json:"se"`
}

func fp(x float64) *float64 { return &x }

// estimate returns the ratio Σx/Σy with its delta-method standard error.
func (p *pair) estimate() Estimate {
	e := Estimate{Runs: p.n, Num: p.num, Den: p.den}
	if p.den == 0 {
		return e
	}
	r := p.sx / p.sy
	e.Value = fp(r)
	if p.num == 0 {
		// No event anywhere: the one-sided Poisson bound.
		hi := zeroBound / p.sy
		e.Lo, e.Hi = fp(0), fp(hi)
		e.SE = hi / z90
		return e
	}
	if p.n < 2 {
		return e
	}
	// Σ(x − r·y)² = Σx² − 2rΣxy + r²Σy²; Var(r) ≈ n/(n−1) · Σ(x−ry)² / (Σy)².
	ss := p.sxx - 2*r*p.sxy + r*r*p.syy
	if ss < 0 {
		ss = 0
	}
	n := float64(p.n)
	v := n / (n - 1) * ss / (p.sy * p.sy)
	e.SE = math.Sqrt(v)
	e.Lo, e.Hi = fp(math.Max(0, r-z95*e.SE)), fp(r+z95*e.SE)
	return e
}

// Verdicts.
const (
	Agree        = "agree"
	Disagree     = "disagree"
	Inconclusive = "inconclusive"
)

// Comparison is one counter compared between the two sides.
type Comparison struct {
	// Counter names the counter and Per its denominator, e.g.
	// "duplicates" per "sent".
	Counter string   `json:"counter"`
	Per     string   `json:"per"`
	Sim     Estimate `json:"sim"`
	Real    Estimate `json:"real"`
	// Diff is real − sim with its 90% interval (the TOST interval).
	Diff   *float64 `json:"diff"`
	DiffLo *float64 `json:"diff_lo"`
	DiffHi *float64 `json:"diff_hi"`
	// Margin is the equivalence margin, absolute, on the rate.
	Margin float64 `json:"margin"`
	// PEquiv is the TOST p-value (the larger one-sided p); PDiff the
	// two-sided p-value of "no difference".
	PEquiv  *float64 `json:"p_equivalence"`
	PDiff   *float64 `json:"p_difference"`
	Verdict string   `json:"verdict"`
	// Why explains an inconclusive verdict; Excluded, when set, says why
	// the counter is left out of the overall verdict.
	Why      string `json:"why,omitempty"`
	Excluded string `json:"excluded,omitempty"`
}

// Margin is the equivalence margin: absolute on a rate, or relative to
// the simulated rate.
type Margin struct {
	Value    float64
	Relative bool
}

func (m Margin) String() string {
	if m.Relative {
		return trimFloat(m.Value*100) + "% of the simulated rate"
	}
	return trimFloat(m.Value) + " (absolute, on each rate)"
}

// compare runs the equivalence test on one counter.
func compare(counter, per string, sim, real *pair, m Margin) Comparison {
	c := Comparison{Counter: counter, Per: per, Sim: sim.estimate(), Real: real.estimate()}
	c.Margin = m.Value
	if m.Relative && c.Sim.Value != nil {
		c.Margin = m.Value * *c.Sim.Value
	}
	switch {
	case c.Sim.Value == nil || c.Real.Value == nil:
		c.Verdict, c.Why = Inconclusive, "no "+per+" on one side"
		return c
	case c.Sim.Runs < MinRuns || c.Real.Runs < MinRuns:
		c.Verdict, c.Why = Inconclusive, "fewer than "+itoa(MinRuns)+" runs on a side"
	}
	d := *c.Real.Value - *c.Sim.Value
	se := math.Hypot(c.Sim.SE, c.Real.SE)
	c.Diff = fp(d)
	c.DiffLo, c.DiffHi = fp(d-z90*se), fp(d+z90*se)
	if se == 0 {
		// Both sides exactly equal in every run with events: nothing to
		// estimate, the difference is what it is.
		pe, pd := 1.0, 1.0
		if math.Abs(d) < c.Margin {
			pe = 0
		}
		if d != 0 {
			pd = 0
		}
		c.PEquiv, c.PDiff = fp(pe), fp(pd)
	} else {
		lower := 1 - distuv.UnitNormal.CDF((d+c.Margin)/se) // H0: d ≤ −margin
		upper := distuv.UnitNormal.CDF((d - c.Margin) / se) // H0: d ≥ margin
		c.PEquiv = fp(math.Max(lower, upper))
		c.PDiff = fp(2 * (1 - distuv.UnitNormal.CDF(math.Abs(d)/se)))
	}
	if c.Verdict != "" {
		return c
	}
	switch {
	case *c.PEquiv < 0.05:
		c.Verdict = Agree
	case *c.PDiff < 0.05:
		c.Verdict = Disagree
	default:
		c.Verdict, c.Why = Inconclusive, "neither equivalence within the margin nor a difference is shown: more runs"
	}
	return c
}
