package scenarios

import (
	"strings"
	"testing"
)

// TestRollingInvariants holds scenario rolling to its story: over 20
// seeds (200 with -long) no invariant fails, every record is
// acknowledged, the client sees NOT_LEADER_OR_FOLLOWER in every run, and
// every broker entered controlled shutdown (the controller moved a
// leadership away from it) and stopped when the controller let it.
func TestRollingInvariants(t *testing.T) {
	sc, err := Lookup("rolling")
	if err != nil {
		t.Fatal(err)
	}
	seeds := uint64(20)
	if *long {
		seeds = 200
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, KeepTrace: true})
		if len(r.Violations) > 0 || r.Acked != r.Sent || r.Stop != "drained" {
			t.Fatalf("seed %d: violations %v, %d of %d acked, stop %s", seed, r.Violations, r.Acked, r.Sent, r.Stop)
		}
		if r.Errors["NOT_LEADER_OR_FOLLOWER"] == 0 {
			t.Fatalf("seed %d: no NOT_LEADER_OR_FOLLOWER (errors %v)", seed, r.Errors)
		}
		trace := strings.Join(r.Trace, "\n")
		for _, b := range []string{"b1", "b2", "b3"} {
			if !strings.Contains(trace, " n1 "+b+" enters controlled shutdown") || !strings.Contains(trace, " "+b+" controlled shutdown: the controller lets it stop") {
				t.Errorf("seed %d: %s's controlled shutdown is not in the trace", seed, b)
			}
		}
	}
}
