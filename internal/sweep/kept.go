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

// KeptRun is a failing run a summary keeps, with the invariants the
// summary lists it under, in name order.
type KeptRun struct {
	Kept
	Invariants []string
}

// KeptRuns returns every failing run the summary lists (as [State.Kept])
// with its invariants: a merged summary's, for the pages its shards made.
func (s *Summary) KeptRuns() ([]KeptRun, error) {
	st, err := s.state()
	if err != nil {
		return nil, err
	}
	var out []KeptRun
	for _, k := range st.Kept() {
		a := st.Acc[k.Point][slices.Index(st.Modes, k.On)]
		var invs []string
		for inv, seeds := range a.Failing {
			if slices.Contains(seeds, k.Seed) {
				invs = append(invs, inv)
			}
		}
		slices.Sort(invs)
		out = append(out, KeptRun{Kept: k, Invariants: invs})
	}
	return out, nil
}
