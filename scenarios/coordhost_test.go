package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios/params"
)

// coordHostRun runs scenario coordmove with its b1 shut down at 1.2s for
// 1s and then the plan's further lines, 120 records (12 s of sending),
// and the parameters sets; it fails the test on any violation or record
// not acknowledged and returns the trace.
func coordHostRun(t *testing.T, seed uint64, more string, sets ...params.KV) []string {
	t.Helper()
	sc, err := Lookup("coordmove")
	if err != nil {
		t.Fatal(err)
	}
	sets = append([]params.KV{{Key: "records", Value: "120"}}, sets...)
	r := mustRun(t, Spec{Scenario: sc, Seed: seed, KeepTrace: true, Sets: sets, PlanText: "1.2s shutdown b1 1s\n" + more})
	if len(r.Violations) > 0 || r.Acked != r.Sent || r.Stop != "drained" {
		t.Fatalf("seed %d: violations %v, %d of %d acked, stop %s\nreproduce: %s", seed, r.Violations, r.Acked, r.Sent, r.Stop, r.Reproduce)
	}
	return r.Trace
}

// coordLineAt returns the index of the first trace line containing s, -1 if
// none, and its time.
func coordLineAt(t *testing.T, trace []string, s string) (int, time.Duration) {
	t.Helper()
	for i, l := range trace {
		if strings.Contains(l, s) {
			d, err := time.ParseDuration(strings.TrimPrefix(strings.Fields(l)[0], "t="))
			if err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			return i, d
		}
	}
	return -1, 0
}

// wantMoveBack checks that coordinator n (c1 or g1) moved from b2 back
// to b1, its log's preferred leader, after b1's return, no earlier than
// notBefore, and that the producer, answered NOT_COORDINATOR by b2, looked
// it up and was told b1. It returns the move's time.
func wantMoveBack(t *testing.T, seed uint64, trace []string, n string, notBefore time.Duration) time.Duration {
	t.Helper()
	i, at := coordLineAt(t, trace, " "+n+" resigns on b2 and moves to b1, its log's preferred leader (a preferred-leader election)")
	if i < 0 {
		t.Fatalf("seed %d: %s did not move back to b1", seed, n)
	}
	if u, back := coordLineAt(t, trace, " b1 unfenced"); u < 0 || at < back || at < notBefore {
		t.Fatalf("seed %d: %s moved back at %v, want after b1's return (%v) and at %v or later", seed, n, at, back, notBefore)
	}
	kind, key := "transaction", "txn=t1"
	if n == "g1" {
		kind, key = "group", "group=app-0"
	}
	after := trace[i:]
	j, _ := coordLineAt(t, after, "NOT_COORDINATOR: looking the "+kind+" coordinator up again (was b2)")
	if j < 0 {
		t.Fatalf("seed %d: after %s's move the producer never saw NOT_COORDINATOR from b2", seed, n)
	}
	if k, _ := coordLineAt(t, after[j:], "p1 recv FindCoordinatorResp"); k < 0 || !strings.Contains(after[j+k], key+" NONE coordinator=b1") {
		t.Fatalf("seed %d: after NOT_COORDINATOR from b2, no FindCoordinator answer naming b1 for %s", seed, key)
	}
	return at
}

// TestCoordElectPreferredMovesBack: after b1's controlled shutdown moved
// both coordinators to b2 and b1 came back, an operator's preferred-leader
// election (every partition, or the internal partitions named) moves
// them back to b1, their logs' preferred leader: the producer gets
// NOT_COORDINATOR from b2 and finds them on b1. Naming
// __transaction_state alone moves c1 only.
func TestCoordElectPreferredMovesBack(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		trace := coordHostRun(t, seed, "8s elect-preferred\n")
		wantMoveBack(t, seed, trace, "c1", 8*time.Second)
		wantMoveBack(t, seed, trace, "g1", 8*time.Second)

		trace = coordHostRun(t, seed, "8s elect-preferred p0,__transaction_state\n")
		wantMoveBack(t, seed, trace, "c1", 8*time.Second)
		if i, _ := coordLineAt(t, trace, " g1 resigns on b2"); i >= 0 {
			t.Errorf("seed %d: g1 moved, but __consumer_offsets was not named: %s", seed, trace[i])
		}
		if i, _ := coordLineAt(t, trace, "__transaction_state leader b1 epoch 2 (preferred)"); i < 0 {
			t.Errorf("seed %d: no note of __transaction_state's preferred election", seed)
		}
	}
}

// TestCoordAutoRebalanceMovesBack: with auto.leader.rebalance.enable the
// controller's periodic preferred-leader check moves the coordinators
// back to b1 once b1 is back: the check armed when they left b1 runs
// every leader.imbalance.check.interval.seconds (3 here) while they are
// away, so the first one after b1's return moves both.
func TestCoordAutoRebalanceMovesBack(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		trace := coordHostRun(t, seed, "", params.KV{Key: "auto.leader.rebalance.enable", Value: "true"},
			params.KV{Key: "leader.imbalance.check.interval.seconds", Value: "3"})
		at := wantMoveBack(t, seed, trace, "c1", 0)
		if g := wantMoveBack(t, seed, trace, "g1", 0); g != at {
			t.Errorf("seed %d: c1 moved back at %v, g1 at %v: one check moves both", seed, at, g)
		}
		_, back := coordLineAt(t, trace, " b1 unfenced")
		if at-back > 3*time.Second {
			t.Errorf("seed %d: moved back at %v, more than one check interval after b1's return at %v", seed, at, back)
		}
		if i, _ := coordLineAt(t, trace, "fault elect-preferred"); i >= 0 {
			t.Fatalf("seed %d: the plan elected, not the periodic check", seed)
		}
	}
}

// TestCoordResignAnswersInFlightWrite: a __transaction_state write in
// flight (coordinator.log.append.time=300ms) when b1's controlled
// shutdown moves the transaction coordinator away is answered
// NOT_COORDINATOR at the move, and the producer looks the coordinator up
// at once, rather than waiting for its request to time out. Of seeds
// 1-20, the move catches a write in flight in some; each run completes
// with every record acknowledged and no invariant failing.
func TestCoordResignAnswersInFlightWrite(t *testing.T) {
	sc, err := Lookup("coordmove")
	if err != nil {
		t.Fatal(err)
	}
	caught := 0
	for seed := uint64(1); seed <= 20; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, KeepTrace: true, Sets: []params.KV{{Key: "coordinator.log.append.time", Value: "300ms"}}})
		if len(r.Violations) > 0 || r.Acked != r.Sent || r.Stop != "drained" {
			t.Fatalf("seed %d: violations %v, %d of %d acked, stop %s\nreproduce: %s", seed, r.Violations, r.Acked, r.Sent, r.Stop, r.Reproduce)
		}
		i, at := coordLineAt(t, r.Trace, " c1 resigns on b1 and moves to b2")
		if i < 0 {
			t.Fatalf("seed %d: c1 did not move", seed)
		}
		stamp := strings.Fields(r.Trace[i])[0] + " "
		for _, l := range r.Trace[i+1:] {
			if !strings.HasPrefix(l, stamp) {
				break
			}
			if !strings.Contains(l, " c1 send ") || !strings.Contains(l, "NOT_COORDINATOR -> p1") {
				continue
			}
			caught++
			if j, _ := coordLineAt(t, r.Trace[i:], "p1 "); j < 0 {
				t.Fatalf("seed %d: no producer line after the move", seed)
			}
			if j, _ := coordLineAt(t, r.Trace[i:], " NOT_COORDINATOR: looking the transaction coordinator up again (was b1)"); j < 0 {
				t.Errorf("seed %d: the producer did not look c1 up after %q at %v", seed, l, at)
			}
		}
	}
	if caught == 0 {
		t.Errorf("no run of seeds 1-20 answered a write in flight NOT_COORDINATOR at the move")
	}
	t.Logf("%d of 20 runs answered a write in flight NOT_COORDINATOR", caught)
}

// TestCoordMovesToDownBroker: the controller does not know that b2
// crashed until its session expires, so b1's controlled shutdown elects
// b2 for the coordinators' partitions; c1 goes down with its new host
// and moves on to b3, loading the log, when the controller fences b2.
func TestCoordMovesToDownBroker(t *testing.T) {
	sc, err := Lookup("coordmove")
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, Spec{Scenario: sc, Seed: 1, KeepTrace: true, Sets: []params.KV{{Key: "records", Value: "200"}}, PlanText: "3s crash b2\n3.5s shutdown b1 1s\n"})
	if len(r.Violations) > 0 || r.Acked != r.Sent {
		t.Fatalf("violations %v, %d of %d acked\nreproduce: %s", r.Violations, r.Acked, r.Sent, r.Reproduce)
	}
	i, down := coordLineAt(t, r.Trace, " c1 moves to b2, the new __transaction_state leader, which is down")
	j, fenced := coordLineAt(t, r.Trace, " b2 fenced")
	k, moved := coordLineAt(t, r.Trace, " c1 moves to b3, the new __transaction_state leader, and loads the log")
	if i < 0 || j < 0 || k < 0 || down > fenced || moved != fenced {
		t.Fatalf("c1 down on b2 at %v (line %d), b2 fenced at %v (line %d), c1 on b3 at %v (line %d): want down on b2, then on b3 at b2's fence", down, i, fenced, j, moved, k)
	}
}
