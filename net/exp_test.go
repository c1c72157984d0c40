package net

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
)

// TestExp2Table recomputes every entry of the table, 2**(j/256), from
// eight square roots of 2 in 300-bit arithmetic, rounded to nearest.
func TestExp2Table(t *testing.T) {
	const prec = 300
	r := new(big.Float).SetPrec(prec).SetInt64(2)
	for range 8 {
		r.Sqrt(r)
	}
	v := new(big.Float).SetPrec(prec).SetInt64(1)
	for j := range exp2Table {
		f, _ := v.Float64()
		if got := math.Float64frombits(exp2Table[j]); got != f {
			t.Fatalf("exp2Table[%d] = %v, want 2**(%d/256) = %v", j, got, j, f)
		}
		v.Mul(v, r)
	}
}

// bigExp is e**x to 200 bits: the Taylor series of e**(x/2**m) squared m
// times.
func bigExp(x float64) *big.Float {
	const prec = 200
	m := 12
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -m)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for i := 1; i < 60; i++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(i)))
		sum.Add(sum, term)
	}
	for range m {
		sum.Mul(sum, sum)
	}
	return sum
}

// ulps is |got - want| in units of the last place of want's float64.
func ulps(got float64, want *big.Float) float64 {
	w, _ := want.Float64()
	ulp := math.Nextafter(w, math.Inf(1)) - w
	d := new(big.Float).SetPrec(200).SetFloat64(got)
	d.Sub(d, want)
	f, _ := d.Float64()
	return math.Abs(f) / ulp
}

// TestExpAccuracy: exp is within 1.5 units in the last place of e**x computed
// in 200-bit arithmetic, over the whole table range and densely where
// latencies draw (|x| <= 50), and as close as math.Exp is on average.
func TestExpAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var worst, sumOurs, sumStd float64
	n := 3000
	if testing.Short() {
		n = 500
	}
	for i := range n {
		var x float64
		switch i % 3 {
		case 0:
			x = (rng.Float64()*2 - 1) * 700
		case 1:
			x = (rng.Float64()*2 - 1) * 50
		default:
			x = rng.NormFloat64() * 0.5
		}
		want := bigExp(x)
		u, s := ulps(exp(x), want), ulps(math.Exp(x), want)
		sumOurs, sumStd = sumOurs+u, sumStd+s
		if u > worst {
			worst = u
		}
		if u > 1.5 {
			t.Fatalf("exp(%v) = %v: %.2f units in the last place off e**x", x, exp(x), u)
		}
	}
	t.Logf("worst %.3f ulp; mean %.3f ulp (math.Exp %.3f)", worst, sumOurs/float64(n), sumStd/float64(n))
	for _, x := range []float64{0, 1, -1, 700, -700} {
		if u := ulps(exp(x), bigExp(x)); u > 1.5 {
			t.Errorf("exp(%v): %.2f ulp off", x, u)
		}
	}
	if exp(0) != 1 {
		t.Errorf("exp(0) = %v, want 1", exp(0))
	}
	for _, x := range []float64{701, -701, 1e300, -1e300, math.Inf(1), math.Inf(-1)} {
		if got, want := exp(x), math.Exp(x); got != want {
			t.Errorf("exp(%v) = %v, want math.Exp's %v beyond the table's range", x, got, want)
		}
	}
	if !math.IsNaN(exp(math.NaN())) {
		t.Errorf("exp(NaN) is not NaN")
	}
}

// TestLogNormalDelaysAsMathExp: log-normal delays made with exp are the
// delays math.Exp makes, draw for draw, for every sigma in steps of 0.25
// and spreads from 1 µs to 10 s: the switch moved no delay of any run.
func TestLogNormalDelaysAsMathExp(t *testing.T) {
	draws := 2_000_000
	if testing.Short() {
		draws = 20_000
	}
	rng := rand.New(rand.NewPCG(3, 4))
	spreads := []time.Duration{time.Microsecond, 100 * time.Microsecond, time.Millisecond, 5 * time.Millisecond, 100 * time.Millisecond, 10 * time.Second}
	for i := range draws {
		s := float64(i%21) * 0.25
		z := rng.NormFloat64()
		sp := float64(spreads[i%len(spreads)])
		if got, want := roundMicro(sp*exp(s*z)), roundMicro(sp*math.Exp(s*z)); got != want {
			t.Fatalf("spread %v, sigma %v, z %v: delay %v with exp, %v with math.Exp", time.Duration(sp), s, z, got, want)
		}
	}
}

var expSink float64

// BenchmarkExp: exp beside math.Exp, on a log-normal's arguments.
func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range xs {
		xs[i] = 0.5 * rng.NormFloat64()
	}
	b.Run("exp", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			expSink += exp(xs[i&1023])
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			expSink += math.Exp(xs[i&1023])
		}
	})
}
