package validate

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// Statistics of a comparison. Each side's rate is a ratio estimator
// Σx/Σy over runs (as in sweeps, docs/sweeps.md) with its standard error
// from the delta method clustered by run. The two sides are compared with
// an equivalence test: two one-sided tests (TOST) of |real − sim| ≥
// margin at α = 0.05 each, that is, the difference's 90% interval must
// lie inside (−margin, margin); the tests use Student's t with Welch's
// degrees of freedom.

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
	// Poisson is set when the rate had no spread between runs (the same
	// ratio in every run, not 0): Lo and Hi are then the exact Poisson
	// 95% interval of the total count Num over Den, and SE is √Num/Den,
	// not the delta method's zero.
	Poisson bool `json:"poisson,omitempty"`
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
	if ss <= 1e-12*p.sxx {
		// No spread between runs (every run's x is r times its y: a
		// fault that fences exactly one send per run): the delta method
		// gives a zero-width interval, which would claim a certainty
		// the runs do not have. The exact Poisson interval of the total
		// count over Σy, and its standard error √Σx/Σy, stand in.
		k := float64(p.num)
		e.Lo = fp(distuv.ChiSquared{K: 2 * k}.Quantile(0.025) / 2 / p.sy)
		e.Hi = fp(distuv.ChiSquared{K: 2*k + 2}.Quantile(0.975) / 2 / p.sy)
		e.SE = math.Sqrt(k) / p.sy
		e.Poisson = true
		return e
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

// Alpha is the level of each one-sided test of the equivalence test, and
// of the two-sided test of a difference, in a single look.
const Alpha = 0.05

// Power is the power the runs-needed estimate aims for (RunsNeeded).
const Power = 0.8

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
	// Margin is the equivalence margin, absolute, on the rate, and
	// MarginRule says which rule gave it: "relative", "floor" or
	// "absolute" (MarginText has the numbers).
	Margin     float64 `json:"margin"`
	MarginRule string  `json:"margin_rule"`
	MarginText string  `json:"margin_text"`
	// DF is the degrees of freedom of the Student t the tests use
	// (Welch–Satterthwaite from both sides' runs and standard errors):
	// with few runs, a per-run rate with a long tail makes the normal
	// approximation too quick to call a difference.
	DF float64 `json:"df"`
	// Alpha is the level the tests were run at: 0.05, or less at a later
	// look of -runs auto (alpha spending).
	Alpha float64 `json:"alpha"`
	// PEquiv is the TOST p-value (the larger one-sided p); PDiff the
	// two-sided p-value of "no difference".
	PEquiv  *float64 `json:"p_equivalence"`
	PDiff   *float64 `json:"p_difference"`
	Verdict string   `json:"verdict"`
	// RunsNeeded is the estimated number of real runs that would decide
	// the counter at this margin (see Need); nil when it cannot be
	// estimated, and NeedWhy says why or which verdict it aims at.
	RunsNeeded *int64 `json:"runs_needed"`
	NeedWhy    string `json:"runs_needed_for"`
	// Why explains an inconclusive verdict; Excluded, when set, says why
	// the counter is left out of the overall verdict.
	Why      string `json:"why,omitempty"`
	Excluded string `json:"excluded,omitempty"`
	// ExcludedBy is what Excluded is: "" a kfake deviation, "client" a
	// documented difference of the real client's.
	ExcludedBy string `json:"excluded_by,omitempty"`
}

// Margin is the equivalence margin. Absolute, it is Value on each rate.
// Relative, it is Value times the simulated rate, but never less than
// Floor (absolute): a relative margin alone is 0 for a simulated rate of
// 0, so no number of runs could show agreement there, and it is tiny for
// rates near 0.
type Margin struct {
	Value    float64
	Relative bool
	Floor    float64
}

// DefaultFloor is the default margin's absolute floor: 0.002, one
// record in 500 (docs/validate.md says why).
const DefaultFloor = 0.002

// DefaultMargin is the default margin: 20% of the simulated rate, at
// least DefaultFloor.
var DefaultMargin = Margin{Value: 0.2, Relative: true, Floor: DefaultFloor}

func (m Margin) String() string {
	if m.Relative {
		s := trimFloat(m.Value*100) + "% of the simulated rate"
		if m.Floor > 0 {
			s += ", at least " + trimFloat(m.Floor) + " (absolute floor)"
		}
		return s
	}
	return trimFloat(m.Value) + " (absolute, on each rate)"
}

// of returns the margin for a simulated rate (nil: none) and the rule
// that gave it.
func (m Margin) of(sim *float64) (float64, string, string) {
	if !m.Relative {
		return m.Value, "absolute", trimFloat(m.Value) + " absolute"
	}
	if sim == nil {
		return m.Floor, "floor", "floor " + trimFloat(m.Floor) + " (no simulated rate)"
	}
	rel := m.Value * *sim
	if rel < m.Floor {
		return m.Floor, "floor", "floor " + trimFloat(m.Floor) + " (" + trimFloat(m.Value*100) + "% of " + strconv.FormatFloat(*sim, 'f', 4, 64) + " is less)"
	}
	return rel, "relative", strconv.FormatFloat(rel, 'f', 4, 64) + " (" + trimFloat(m.Value*100) + "% of " + strconv.FormatFloat(*sim, 'f', 4, 64) + ")"
}

// quantile is the standard normal quantile.
func quantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// compare runs the equivalence test on one counter at level alpha (each
// one-sided test; the difference test is two-sided at alpha). simGrows
// tells the runs-needed estimate whether the simulated side's runs grow
// with the real side's (a fixed -runs, sim-runs = k × runs) or stay as
// they are (-runs auto).
func compare(counter, per string, sim, real *pair, m Margin, alpha float64, simGrows bool) Comparison {
	c := Comparison{Counter: counter, Per: per, Sim: sim.estimate(), Real: real.estimate(), Alpha: alpha}
	c.Margin, c.MarginRule, c.MarginText = m.of(c.Sim.Value)
	switch {
	case c.Sim.Value == nil || c.Real.Value == nil:
		c.Verdict, c.Why = Inconclusive, "no "+per+" on one side"
		c.NeedWhy = "no " + per + " on one side"
		return c
	case c.Sim.Runs < MinRuns || c.Real.Runs < MinRuns:
		c.Verdict, c.Why = Inconclusive, "fewer than "+itoa(MinRuns)+" runs on a side"
	}
	d := *c.Real.Value - *c.Sim.Value
	se := math.Hypot(c.Sim.SE, c.Real.SE)
	c.DF = welch(c.Real.SE, c.Sim.SE, c.Real.Runs, c.Sim.Runs)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: c.DF}
	c.Diff = fp(d)
	t90 := t.Quantile(0.95)
	c.DiffLo, c.DiffHi = fp(d-t90*se), fp(d+t90*se)
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
		lower := 1 - t.CDF((d+c.Margin)/se) // H0: d ≤ −margin
		upper := t.CDF((d - c.Margin) / se) // H0: d ≥ margin
		c.PEquiv = fp(math.Max(lower, upper))
		c.PDiff = fp(2 * (1 - t.CDF(math.Abs(d)/se)))
	}
	c.RunsNeeded, c.NeedWhy = Need(d, c.Margin, c.Real.Runs, c.Real.SE, c.Sim.SE, c.Real.Num == 0, c.Sim.Num == 0, simGrows)
	if c.Verdict != "" {
		return c
	}
	switch {
	case *c.PEquiv < alpha:
		c.Verdict = Agree
	case *c.PDiff < alpha:
		c.Verdict = Disagree
	default:
		c.Verdict, c.Why = Inconclusive, "neither equivalence within the margin nor a difference is shown: more runs"
	}
	return c
}

// welch is the Welch–Satterthwaite degrees of freedom of a difference of
// two means with standard errors a (n runs) and b (m runs); at least 1.
func welch(a, b float64, n, m int64) float64 {
	if n < 2 || m < 2 {
		return 1
	}
	va, vb := a*a, b*b
	den := va*va/float64(n-1) + vb*vb/float64(m-1)
	if den == 0 {
		return float64(n + m - 2)
	}
	return math.Max(1, (va+vb)*(va+vb)/den)
}

// Need estimates the real runs that decide a counter at margin m, from
// the observed difference d and the two sides' standard errors now (n
// real runs), for one look at level Alpha with power Power (normal
// approximation, the observed d taken as the true difference). It is the
// least n' ≥ MinRuns with
//
//	agree    (|d| < m):  (z(1−α) + z(P)) · SE(n') ≤ m − |d|
//	disagree (d ≠ 0):    (z(1−α/2) + z(P)) · SE(n') ≤ |d|
//
// whichever is smaller, where SE(n')² = seReal²·(n/n') + seSim²·(n/n')
// when the simulated runs grow in proportion (simGrows; a fixed -runs
// with -sim-runs k × -runs), and seReal²·(n/n') + seSim² when they stay
// fixed (-runs auto). That is the textbook TOST sample size
// n' = (z(1−α) + z(P))²·σ²/(m − |d|)² with σ² = n·SE² the observed
// per-run variance. A side with no event in any run has the Poisson
// bound's SE, which shrinks as n/n' rather than its square root
// (zeroReal, zeroSim). It returns nil with the reason when neither
// verdict is reachable, else the verdict it aims at.
func Need(d, m float64, n int64, seReal, seSim float64, zeroReal, zeroSim, simGrows bool) (*int64, string) {
	if n < 2 {
		return nil, "fewer than 2 real runs: no variance yet"
	}
	if seReal == 0 && seSim == 0 {
		return nil, "no variance on either side: more runs change nothing"
	}
	shrink := func(se float64, zero bool, ratio float64) float64 {
		if zero {
			return se * ratio
		}
		return se * math.Sqrt(ratio)
	}
	nn := float64(n)
	se := func(runs float64) float64 {
		r := shrink(seReal, zeroReal, nn/runs)
		s := seSim
		if simGrows {
			s = shrink(seSim, zeroSim, nn/runs)
		}
		return math.Hypot(r, s)
	}
	const most = 1e9
	zp := quantile(Power)
	runs := func(z, gap float64) (float64, bool) {
		if gap <= 0 || z*se(most) > gap {
			return 0, false
		}
		lo, hi := 1.0, most // se(hi) is small enough; find the least
		for hi-lo > 0.5 {
			mid := math.Floor((lo + hi) / 2)
			if z*se(mid) <= gap {
				hi = mid
			} else {
				lo = mid + 1
			}
			if lo >= hi {
				break
			}
		}
		return hi, true
	}
	best, why := math.Inf(1), ""
	if a, ok := runs(quantile(1-Alpha)+zp, m-math.Abs(d)); ok {
		best, why = a, "agree"
	}
	if b, ok := runs(quantile(1-Alpha/2)+zp, math.Abs(d)); ok && b < best {
		best, why = b, "disagree"
	}
	if math.IsInf(best, 1) {
		if !simGrows {
			return nil, "not reachable: the simulated side's own interval is too wide for the margin (more -sim-runs)"
		}
		return nil, "not reachable within a billion runs"
	}
	r := int64(math.Max(best, MinRuns))
	return &r, why
}
