package net

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestLatencyBound: Bound is the stated quantile bound for each
// distribution, adds the tail only when tails are on, and saturates
// instead of overflowing; no draw in many exceeds it.
func TestLatencyBound(t *testing.T) {
	for _, tc := range []struct {
		l    Latency
		want time.Duration
	}{
		{Latency{Dist: Constant, Base: time.Millisecond, Spread: time.Second}, time.Millisecond},
		{Latency{Dist: Uniform, Base: time.Millisecond, Spread: time.Second}, time.Second + time.Millisecond},
		{Latency{Dist: Exponential, Base: time.Millisecond, Spread: time.Millisecond}, 22 * time.Millisecond},
		{Latency{Dist: LogNormal, Base: 500 * time.Microsecond, Spread: time.Millisecond}, 500*time.Microsecond + 20086*time.Microsecond},
		{Latency{Dist: Constant, Base: time.Millisecond, Tail: time.Second}, time.Millisecond},
		{Latency{Dist: Constant, Base: time.Millisecond, Tail: time.Second, TailProb: 0.01}, time.Second + time.Millisecond},
		{Latency{Dist: Uniform, Base: math.MaxInt64 - 5, Spread: time.Second}, math.MaxInt64},
	} {
		if got := tc.l.Bound(); got != tc.want {
			t.Errorf("%+v: Bound = %v, want %v", tc.l, got, tc.want)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, l := range []Latency{{Dist: Exponential, Base: time.Millisecond, Spread: time.Millisecond}, {Dist: LogNormal, Base: time.Millisecond, Spread: time.Millisecond, Sigma: 1}} {
		b := l.Bound()
		for range 100000 {
			if d := l.Draw(rng); d > b {
				t.Fatalf("%+v: drew %v above Bound %v", l, d, b)
			}
		}
	}
}
