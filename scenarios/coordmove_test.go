package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

// TestCoordMoveInvariants holds scenario coordmove to its story over 20
// seeds (200 with -long): no invariant fails and every record is
// acknowledged, whether b1 stops by controlled shutdown (the scenario's
// plan) or is cut off from the producer and the controller until the
// controller fences it (a partition plan). The coordinators resign on b1
// and move to b2 in every run, and the client sees NOT_COORDINATOR from
// the old ones (after the partition, once its requests reach them
// again). After the shutdown it also sees COORDINATOR_LOAD_IN_PROGRESS
// from the new ones, for coordinator.load.ms, in at least 90% of the runs
// (198 of seeds 1-200: in the others its first request after the move
// came after the load).
func TestCoordMoveInvariants(t *testing.T) {
	sc, err := Lookup("coordmove")
	if err != nil {
		t.Fatal(err)
	}
	seeds := uint64(20)
	if *long {
		seeds = 200
	}
	for _, c := range []struct {
		name, plan string
		loading    bool
	}{
		{"shutdown", "", true},
		{"partition", "1.2s partition b1 | p1 n1\n13.2s heal b1 | p1 n1\n", false},
	} {
		loaded := uint64(0)
		for seed := uint64(1); seed <= seeds; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, KeepTrace: true, PlanText: c.plan})
			if len(r.Violations) > 0 || r.Acked != r.Sent || r.Stop != "drained" {
				t.Fatalf("%s seed %d: violations %v, %d of %d acked, stop %s\nreproduce: %s", c.name, seed, r.Violations, r.Acked, r.Sent, r.Stop, r.Reproduce)
			}
			trace := strings.Join(r.Trace, "\n")
			for _, n := range []string{"c1", "g1"} {
				if !strings.Contains(trace, " "+n+" resigns on b1 and moves to b2") {
					t.Errorf("%s seed %d: %s did not move to b2", c.name, seed, n)
				}
			}
			if r.Errors["NOT_COORDINATOR"] == 0 {
				t.Errorf("%s seed %d: errors %v, want NOT_COORDINATOR", c.name, seed, r.Errors)
			}
			if r.Errors["COORDINATOR_LOAD_IN_PROGRESS"] > 0 {
				loaded++
			}
			if !strings.Contains(trace, "coordinator=b2") {
				t.Errorf("%s seed %d: no FindCoordinator answer names b2", c.name, seed)
			}
		}
		if c.loading && loaded*10 < seeds*9 {
			t.Errorf("%s: COORDINATOR_LOAD_IN_PROGRESS in %d of %d runs, want at least 90%%", c.name, loaded, seeds)
		}
	}
}

// TestCoordMoveGroupMembers runs coordmove with a group application (two
// exactly-once-v2 instances, each a consumer in group app-0) over 10
// seeds (50 with -long): when b1 stops, the group coordinator g1 moves to
// b2, and each member's next group request to b1 is answered
// NOT_COORDINATOR; the member looks the coordinator up again and its
// group requests are then served by b2 (a Heartbeat, JoinGroup or
// SyncGroup answered NONE after the move; the old host would answer
// NOT_COORDINATOR). Nothing is lost or duplicated and no invariant fails.
func TestCoordMoveGroupMembers(t *testing.T) {
	sc, err := Lookup("coordmove")
	if err != nil {
		t.Fatal(err)
	}
	seeds := uint64(10)
	if *long {
		seeds = 50
	}
	sets := []params.KV{{Key: "app.mode", Value: "exactly-once-v2"}, {Key: "app.input", Value: "topic"}, {Key: "app.instances", Value: "2"}}
	groupOps := []string{"JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetFetch", "OffsetCommit"}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, KeepTrace: true, Sets: sets})
		if len(r.Violations) > 0 || r.Acked != r.Sent || r.Stop != "drained" {
			t.Fatalf("seed %d: violations %v, %d of %d acked, stop %s\nreproduce: %s", seed, r.Violations, r.Acked, r.Sent, r.Stop, r.Reproduce)
		}
		moved := -1
		for i, l := range r.Trace {
			if strings.Contains(l, " g1 resigns on b1 and moves to b2") {
				moved = i
				break
			}
		}
		if moved < 0 {
			t.Fatalf("seed %d: g1 did not move to b2", seed)
		}
		looked := false
		for _, member := range []string{"p1", "p2"} {
			served := false
			for _, l := range r.Trace[moved:] {
				for _, op := range groupOps {
					if strings.Contains(l, " "+member+" "+op+" NOT_COORDINATOR: looking the group coordinator up again (was b1)") {
						looked = true
					}
				}
				for _, resp := range []string{"HeartbeatResp#", "JoinGroupResp#", "SyncGroupResp#"} {
					if strings.Contains(l, " "+member+" recv "+resp) && strings.Contains(l, "group=app-0 NONE") {
						served = true
					}
				}
			}
			if !served {
				t.Errorf("seed %d: no group request of %s served after the move\nreproduce: %s", seed, member, r.Reproduce)
			}
		}
		if !looked {
			t.Errorf("seed %d: no member looked the group coordinator up again after NOT_COORDINATOR\nreproduce: %s", seed, r.Reproduce)
		}
	}
}
