package sim

import "math/rand/v2"

// FNV-64a, for stream ids.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// NewRand returns the random stream of one component of a run: a PCG
// generator seeded from the run seed and the component's stream id. Streams
// with different ids are independent, so extra draws in one component never
// shift another component's draws.
//
// idemsim uses math/rand/v2 (PCG), the successor of the deprecated
// golang.org/x/exp/rand that the design card names. Its seeded sequences
// are pinned by the Go project's regression tests, so traces survive
// toolchain upgrades.
func NewRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(mix64(seed), mix64(stream^0x9e3779b97f4a7c15)))
}

// StreamID derives a stable stream id from a component name such as
// "net", "producer/p1" or "faults". The mapping is FNV-64a, fixed forever so
// that seeds stay reproducible across versions.
func StreamID(name string) uint64 {
	h := fnvOffset
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= fnvPrime
	}
	return h
}

// Chance reports whether an event of probability ppm parts per million
// happens, drawing once from rng. ppm 0 never draws and never happens, so a
// disabled fault source consumes no randomness.
func Chance(rng *rand.Rand, ppm uint32) bool {
	if ppm == 0 {
		return false
	}
	if ppm >= 1_000_000 {
		return true
	}
	return rng.Uint32N(1_000_000) < ppm
}

// mix64 is SplitMix64's finaliser: it spreads nearby seeds (42, 43, ...)
// into unrelated PCG states.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Rands hands out a run's random streams ([NewRand]) in memory reused from
// the previous run: after Reset, each New reseeds one of the generators
// the previous run was given instead of allocating two objects. The
// streams are NewRand's, draw for draw. A stream handed out before a
// Reset must not be used after it. The zero value is ready to use.
type Rands struct {
	pcgs  []*rand.PCG
	rands []*rand.Rand
	used  int
}

// Reset takes back every stream handed out since the last Reset.
func (p *Rands) Reset() { p.used = 0 }

// New returns the stream NewRand(seed, stream) returns.
func (p *Rands) New(seed, stream uint64) *rand.Rand {
	a, b := mix64(seed), mix64(stream^0x9e3779b97f4a7c15)
	if p.used < len(p.rands) {
		p.pcgs[p.used].Seed(a, b)
		r := p.rands[p.used]
		p.used++
		return r
	}
	pcg := rand.NewPCG(a, b)
	r := rand.New(pcg)
	p.pcgs, p.rands = append(p.pcgs, pcg), append(p.rands, r)
	p.used++
	return r
}
