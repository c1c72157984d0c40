package net

import (
	"math"
	"time"
)

// Bound returns a delay that a draw exceeds with a probability below
// 1e-9: Base for a constant latency, Base+Spread for a uniform one,
// Base+21*Spread for an exponential one (e**-21 < 1e-9), Base+Spread*
// e**(6*Sigma) for a log-normal one (six standard deviations), plus Tail
// when tails are on. A world uses it to tell whether messages can be late
// enough to change anything (scenarios/world/world_replidle.go).
func (l *Latency) Bound() time.Duration {
	d := l.Base
	switch l.Dist {
	case Uniform:
		d = satAdd(d, l.Spread)
	case Exponential:
		d = satAdd(d, roundMicro(float64(l.Spread)*21))
	case LogNormal:
		s := l.Sigma
		if s == 0 {
			s = 0.5
		}
		d = satAdd(d, roundMicro(float64(l.Spread)*exp(6*s)))
	}
	if l.TailProb > 0 {
		d = satAdd(d, l.Tail)
	}
	return d
}

// satAdd is a+b for non-negative durations, at most math.MaxInt64.
func satAdd(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// LatencyBound returns [Latency.Bound] of the directed link from -> to.
func (nw *Network) LatencyBound(from, to NodeID) time.Duration {
	return nw.lat[int(from)*len(nw.names)+int(to)].Bound()
}
