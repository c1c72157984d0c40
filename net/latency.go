package net

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Dist is the shape of a latency distribution.
type Dist uint8

// Latency distributions.
const (
	// Constant: always Base.
	Constant Dist = iota
	// Uniform: uniform in [Base, Base+Spread].
	Uniform
	// Exponential: Base plus an exponential with mean Spread.
	Exponential
	// LogNormal: Base plus a log-normal whose median is Spread and whose
	// shape (sigma of the underlying normal) is Sigma.
	LogNormal
)

var distNames = [...]string{"constant", "uniform", "exponential", "lognormal"}

// String returns the distribution's name as used in parameters.
func (d Dist) String() string {
	if int(d) < len(distNames) {
		return distNames[d]
	}
	return "unknown"
}

// ParseDist parses a distribution name.
func ParseDist(s string) (Dist, error) {
	for i, n := range distNames {
		if n == s {
			return Dist(i), nil
		}
	}
	return 0, fmt.Errorf("unknown latency distribution %q (allowed: constant, uniform, exponential, lognormal)", s)
}

// Latency is a one-way delay distribution. Drawn delays are rounded to whole
// microseconds, so that the last bit of a floating-point computation can
// never change an event's order across machines.
type Latency struct {
	Dist Dist
	// Base is the minimum delay, >= 0.
	Base time.Duration
	// Spread is the distribution's scale (see [Dist]), >= 0.
	Spread time.Duration
	// Sigma is the log-normal shape, 0..5; 0 means 0.5.
	Sigma float64
	// TailProb is the probability, 0..1, that a message instead takes Tail
	// extra: rare long delays such as a stalled switch or retransmission.
	TailProb float64
	// Tail is the extra delay of a tail message, >= 0.
	Tail time.Duration
}

// Validate reports the first field out of range, prefixed by name.
func (l *Latency) Validate(name string) error {
	if l.Dist > LogNormal {
		return fmt.Errorf("%s.dist is unknown (allowed: constant, uniform, exponential, lognormal)", name)
	}
	if err := checkDur(name, ".base", l.Base); err != nil {
		return err
	}
	if err := checkDur(name, ".spread", l.Spread); err != nil {
		return err
	}
	if err := checkDur(name, ".tail", l.Tail); err != nil {
		return err
	}
	if !(l.Sigma >= 0 && l.Sigma <= 5) {
		return fmt.Errorf("%s.sigma=%v is out of range (allowed: 0..5)", name, l.Sigma)
	}
	return checkProb(name, ".tail_prob", l.TailProb)
}

// Draw returns one delay drawn from rng. A constant latency without a tail
// draws nothing.
func (l *Latency) Draw(rng *rand.Rand) time.Duration {
	d := l.Base
	switch l.Dist {
	case Uniform:
		if l.Spread > 0 {
			d += time.Duration(rng.Int64N(int64(l.Spread) + 1))
		}
	case Exponential:
		d += roundMicro(rng.ExpFloat64() * float64(l.Spread))
	case LogNormal:
		s := l.Sigma
		if s == 0 {
			s = 0.5
		}
		d += roundMicro(float64(l.Spread) * exp(s*rng.NormFloat64())) // exp.go: the same on every machine
	}
	if l.TailProb > 0 && rng.Uint32N(1_000_000) < ppm(l.TailProb) {
		d += l.Tail
	}
	return d
}

func roundMicro(ns float64) time.Duration {
	if ns > float64(math.MaxInt64/2) {
		ns = float64(math.MaxInt64 / 2)
	}
	us := int64(ns/1000 + 0.5)
	return time.Duration(us) * time.Microsecond
}
