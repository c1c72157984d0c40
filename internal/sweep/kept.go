package sweep

import (
	"slices"

	"github.com/idemsim/idemsim/scenarios"
)

// Kept is one failing run the summary keeps: a seed listed under some
// invariant at a point and mode (the -failing K smallest per point, mode
// and invariant).
type Kept struct {
	Point int
	On    bool
	Seed  uint64
}

// Kept returns every failing run the summary lists, each once, in (point,
// mode, seed) order.
func (st *State) Kept() []Kept {
	var out []Kept
	for p, accs := range st.Acc {
		for m, a := range accs {
			var seeds []uint64
			for _, s := range a.Failing {
				seeds = append(seeds, s...)
			}
			slices.Sort(seeds)
			for _, s := range slices.Compact(seeds) {
				out = append(out, Kept{Point: p, On: st.Modes[m], Seed: s})
			}
		}
	}
	return out
}

// Spec returns the spec of one run of the sweep: seed at point in mode
// on, with the sweep's scenario file values, -bug IDs and -set values.
func (c *Config) Spec(seed uint64, point int, on bool) scenarios.Spec {
	return c.spec(seed, point, on)
}

// ModeName returns "on" or "off".
func ModeName(on bool) string { return modeName(on) }
