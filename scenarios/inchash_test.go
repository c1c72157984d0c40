package scenarios

import (
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// checkProbe hashes the state at every time choice point, or at one in
// every `every` (so that changes pile up between two hashes, as between
// an explorer's), and checks it against a hash walked from scratch.
type checkProbe struct {
	t      *testing.T
	every  int
	n      int
	points int
	err    error
}

func (p *checkProbe) Choice(cp *world.ChoicePoint) {
	if cp.Kind != world.ChoiceTime || p.err != nil {
		return
	}
	if p.n++; p.n%p.every != 0 {
		return
	}
	p.points++
	p.err = cp.CheckStateHash(cp.StateHash())
}

// TestIncrementalHash: the state hash that walks only the parts of the
// world marked as changed (scenarios/world/statehash.go) equals the hash
// walked from scratch at every time choice point of runs of every
// catalogue scenario, with and without idempotence and generic faults,
// hashed at every point and at one in three (without -long: every point
// without faults, one in three with them); and no two parts of the hash
// reach one pointer. A change of the state the world does not mark shows
// here as a difference. -long runs more seeds.
func TestIncrementalHash(t *testing.T) {
	t.Parallel() // CPU-bound, shares nothing: overlaps the package's other parallel runs
	seeds := uint64(1)
	if *long {
		seeds = 8
	}
	total := 0
	for _, sc := range All() {
		for seed := uint64(1); seed <= seeds; seed++ {
			for _, noise := range []string{"0", "4"} {
				for _, every := range []int{1, 3} {
					if !*long && (noise == "0") != (every == 1) {
						// Without -long: every point of the runs
						// without faults, one in three with them.
						continue
					}
					p := &checkProbe{t: t, every: every}
					sets := append(idem(seed%2 == 1), params.KV{Key: "fault.count", Value: noise})
					r, err := Run(Spec{Scenario: sc, Seed: seed, Sets: sets, Probe: p})
					if err != nil {
						t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
					}
					if p.err != nil {
						t.Fatalf("%s seed %d fault.count=%s every %d: %v\nreproduce: %s", sc.Name, seed, noise, every, p.err, r.Reproduce)
					}
					total += p.points
				}
			}
		}
	}
	t.Logf("%d choice points checked", total)
}
