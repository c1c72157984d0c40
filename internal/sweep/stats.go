package sweep

import (
	"math"
	"math/big"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// z95 is the two-sided 95% normal quantile.
var z95 = distuv.UnitNormal.Quantile(0.975)

// t95 returns the two-sided 95% Student's t quantile with n-1 degrees of
// freedom (n ≥ 2).
func t95(n int64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
}

// Prop is a proportion of runs with a Wilson score 95% interval.
type Prop struct {
	Runs     int64   `json:"runs"`
	Fraction float64 `json:"fraction"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
}

// wilson returns k of n with its Wilson score interval (n=0 gives the
// uninformative [0, 1]).
func wilson(k, n int64) Prop {
	if n == 0 {
		return Prop{Runs: k, Fraction: 0, Lo: 0, Hi: 1}
	}
	p := float64(k) / float64(n)
	z := z95
	nf := float64(n)
	den := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	out := Prop{Runs: k, Fraction: p, Lo: math.Max(0, center-half), Hi: math.Min(1, center+half)}
	if k == 0 {
		out.Lo = 0
	}
	if k == n {
		out.Hi = 1
	}
	return out
}

// Rate is a ratio Σx/Σy over runs with a 95% interval from the delta
// method, clustered by run (each run is one observation (x, y)). Value,
// Lo and Hi are null when Σy is 0; Lo and Hi are null with one run.
//
// Where the delta method has no spread to go on, its interval would have
// zero width and claim certainty: every run with x = 0 (a rate of 0),
// every run with x = y (a rate of 1), or every run giving the same ratio.
// The interval is then a bound made over runs, the independent
// observations (Method "wilson-runs", [wilsonRuns]): at most z²/(n+z²) of
// the runs could differ (Wilson's bound for none of n), each by at most
// the whole range. At 0 it says "none in n runs, at most about 3.8/n",
// never [0, 0].
type Rate struct {
	Value *float64 `json:"value"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
	Num   int64    `json:"num"`
	Den   int64    `json:"den"`
	// Method is how Lo and Hi were made: "delta" (the delta method) or
	// "wilson-runs" (see above); "" when they are null.
	Method string `json:"method,omitempty"`
}

// wilsonRuns bounds a rate p that every one of n runs gave: by the
// Wilson score interval of "0 runs of n differ", at most b = z²/(n+z²)
// of the runs differ (95%), and each of those at most by the whole range,
// so the rate lies in [p - b·p, p + b·(1-p)]. At 0 that is [0, b], about
// the rule of three's 3/n; at 1, [1-b, 1].
func wilsonRuns(p float64, n int64) (lo, hi float64) {
	b := z95 * z95 / (float64(n) + z95*z95)
	return p - b*p, p + b*(1-p)
}

func fp(x float64) *float64 { return &x }

// bigFloat converts exactly enough for a deterministic result.
func bf(x *big.Int) *big.Float { return new(big.Float).SetPrec(256).SetInt(x) }

func ratio(r Ratio, n int64) Rate {
	out := Rate{Num: r.X.Sum, Den: r.Y.Sum}
	if r.Y.Sum == 0 {
		return out
	}
	v := float64(r.X.Sum) / float64(r.Y.Sum)
	out.Value = fp(v)
	if n < 2 {
		return out
	}
	// Σ(x - R·y)² · Y² = Y²·Σx² - 2·X·Y·Σxy + X²·Σy², computed exactly.
	X, Y := big.NewInt(r.X.Sum), big.NewInt(r.Y.Sum)
	num := new(big.Int).Mul(new(big.Int).Mul(Y, Y), r.X.SumSq.Big())
	num.Sub(num, new(big.Int).Mul(new(big.Int).Mul(big.NewInt(2), new(big.Int).Mul(X, Y)), r.XY.Big()))
	num.Add(num, new(big.Int).Mul(new(big.Int).Mul(X, X), r.Y.SumSq.Big()))
	if num.Sign() < 0 {
		num.SetInt64(0)
	}
	// Var(R) ≈ s²/(n·ȳ²) with s² = Σ(x-Ry)²/(n-1) and ȳ = Y/n:
	// Var(R) = num·n / ((n-1)·Y⁴).
	nn := big.NewInt(n)
	top := bf(new(big.Int).Mul(num, nn))
	y2 := new(big.Int).Mul(Y, Y)
	bot := bf(new(big.Int).Mul(new(big.Int).Mul(y2, y2), big.NewInt(n-1)))
	vr, _ := new(big.Float).Quo(top, bot).Float64()
	half := t95(n) * math.Sqrt(vr)
	if num.Sign() == 0 && v <= 1 {
		// No spread: every run gave the same ratio (0 and 1 included).
		lo, hi := wilsonRuns(v, n)
		out.Lo, out.Hi, out.Method = fp(lo), fp(hi), "wilson-runs"
		return out
	}
	out.Lo, out.Hi, out.Method = fp(math.Max(0, v-half)), fp(v+half), "delta"
	return out
}

// Mean is a per-run mean of a count with a Student's t 95% interval
// (null with fewer than two runs). Where every run gave the same count,
// the t interval would have zero width; it is then the exact (Garwood)
// Poisson interval of the total count, divided by the runs (Method
// "poisson"): for a count of 0 in n runs, [0, 3.69/n].
type Mean struct {
	Mean *float64 `json:"mean"`
	Lo   *float64 `json:"lo"`
	Hi   *float64 `json:"hi"`
	// Method is "t" or "poisson" (see above); "" when Lo and Hi are null.
	Method string `json:"method,omitempty"`
}

// garwood is the exact two-sided 95% Poisson interval of a count k.
func garwood(k int64) (lo, hi float64) {
	if k > 0 {
		lo = distuv.ChiSquared{K: float64(2 * k)}.Quantile(0.025) / 2
	}
	return lo, distuv.ChiSquared{K: float64(2*k + 2)}.Quantile(0.975) / 2
}

func mean(m Moments, n int64) Mean {
	if n == 0 {
		return Mean{}
	}
	mu := float64(m.Sum) / float64(n)
	out := Mean{Mean: fp(mu)}
	if n < 2 {
		return out
	}
	// s² = (n·Σx² - (Σx)²) / (n·(n-1)), exactly.
	S := big.NewInt(m.Sum)
	num := new(big.Int).Mul(big.NewInt(n), m.SumSq.Big())
	num.Sub(num, new(big.Int).Mul(S, S))
	if num.Sign() < 0 {
		num.SetInt64(0)
	}
	den := new(big.Int).Mul(big.NewInt(n), big.NewInt(n-1))
	s2, _ := new(big.Float).Quo(bf(num), bf(den)).Float64()
	if num.Sign() == 0 && m.Sum >= 0 {
		lo, hi := garwood(m.Sum)
		out.Lo, out.Hi, out.Method = fp(lo/float64(n)), fp(hi/float64(n)), "poisson"
		return out
	}
	half := t95(n) * math.Sqrt(s2/float64(n))
	out.Lo, out.Hi, out.Method = fp(math.Max(0, mu-half)), fp(mu+half), "t"
	return out
}

// Latency is send-to-ack latency quantiles in milliseconds (null with no
// acknowledged record), read from the histogram (within 0.8%).
type Latency struct {
	Records int64    `json:"records"`
	P50     *float64 `json:"p50"`
	P99     *float64 `json:"p99"`
	P999    *float64 `json:"p999"`
}

// histPoints returns the histogram's non-empty buckets as representative
// values in ms (bucket midpoints) and counts, ascending.
func histPoints(h Hist) (ms, w []float64) {
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		low, width := bucketRange(i)
		ms = append(ms, (float64(low)+float64(width-1)/2)/1e6)
		w = append(w, float64(c))
	}
	return ms, w
}

func latency(h Hist) Latency {
	out := Latency{Records: h.Total()}
	if out.Records == 0 {
		return out
	}
	x, w := histPoints(h)
	q := func(p float64) *float64 { return fp(stat.Quantile(p, stat.Empirical, x, w)) }
	out.P50, out.P99, out.P999 = q(0.5), q(0.99), q(0.999)
	return out
}

// CDF returns the histogram's cumulative distribution: the upper edge of
// each non-empty bucket in ms and the fraction of values at or below it.
func CDF(h Hist) (ms, frac []float64) {
	total := h.Total()
	var cum int64
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		cum += c
		low, width := bucketRange(i)
		ms = append(ms, float64(low+width)/1e6)
		frac = append(frac, float64(cum)/float64(total))
	}
	return ms, frac
}
