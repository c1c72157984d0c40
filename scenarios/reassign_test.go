package scenarios

import (
	"strings"
	"testing"
)

// TestReassignInvariants holds scenario reassign to its story over 200
// seeds with idempotence on: no invariant fails (no duplicate, no loss),
// every record is acknowledged, the client sees NOT_LEADER_OR_FOLLOWER in
// every run, and the trace shows the reassignment completing (b1 removed,
// b4 leading) and the preferred leader b2 elected.
func TestReassignInvariants(t *testing.T) {
	sc, err := Lookup("reassign")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 200; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(true), KeepTrace: true})
		if len(r.Violations) > 0 || r.Acked != r.Sent || r.Stop != "drained" {
			t.Fatalf("seed %d: violations %v, %d of %d acked, stop %s\nreproduce: %s", seed, r.Violations, r.Acked, r.Sent, r.Stop, r.Reproduce)
		}
		if r.Errors["NOT_LEADER_OR_FOLLOWER"] == 0 {
			t.Fatalf("seed %d: no NOT_LEADER_OR_FOLLOWER (errors %v)", seed, r.Errors)
		}
		trace := strings.Join(r.Trace, "\n")
		for _, want := range []string{" n1 p0 reassignment completes: replicas [b4,b2,b3]", " b1 p0 replica removed by a reassignment", " n1 p0 leader b4 epoch 1", " n1 p0 leader b2 epoch 2"} {
			if !strings.Contains(trace, want) {
				t.Fatalf("seed %d: %q is not in the trace", seed, want)
			}
		}
	}
}
