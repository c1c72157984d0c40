package scenarios

import (
	"strconv"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

// TestUnstableStall: in every seed the plan pauses p1 between its
// accepted TxnOffsetCommit and its EndTxn, so p2, the new owner, is
// answered UNSTABLE_OFFSET_COMMIT until the coordinator aborts p1's
// transaction on its timeout: the stall is transaction.timeout.ms less
// the time the group took to move the partition (session.timeout.ms and
// the rebalance, some 12 s), plus up to one abort cleanup interval
// (10 s). No invariant fails.
func TestUnstableStall(t *testing.T) {
	sc := mustLookup(t, "unstable")
	seeds := uint64(200)
	if testing.Short() {
		seeds = 20
	}
	var sum, lo, hi int64 = 0, 1 << 62, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed})
		if !strings.Contains(r.Plan, "pause p1 40s") {
			t.Fatalf("seed %d: plan %q, want p1's pause of 40s (20s + 10s + 10s)", seed, r.Plan)
		}
		if len(r.Violations) > 0 || r.Duplicates != 0 {
			t.Fatalf("seed %d: violations %v, duplicates %d\nreproduce: %s", seed, r.Violations, r.Duplicates, r.Reproduce)
		}
		// transaction.timeout.ms 20 s: at least 20 - 12 s, at most 20 + 10 s.
		if s := r.OffsetFetchStallMs; s < 8000 || s > 30000 {
			t.Fatalf("seed %d: stall %d ms, want 8000..30000 ms\nreproduce: %s", seed, s, r.Reproduce)
		}
		sum, lo, hi = sum+r.OffsetFetchStallMs, min(lo, r.OffsetFetchStallMs), max(hi, r.OffsetFetchStallMs)
	}
	t.Logf("seeds 1-%d: stall mean %d ms, min %d, max %d", seeds, sum/int64(seeds), lo, hi)
}

// TestUnstableTimeout: the stall grows with transaction.timeout.ms, one
// for one (the pause and the rebalance do not move): 20 s more timeout is
// 20 s more stall, to within one cleanup interval.
func TestUnstableTimeout(t *testing.T) {
	sc := mustLookup(t, "unstable")
	stall := func(seed uint64, timeout string) int64 {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: []params.KV{{Key: "transaction.timeout.ms", Value: timeout}}})
		if len(r.Violations) > 0 {
			t.Fatalf("transaction.timeout.ms=%s seed %d: violations %v\nreproduce: %s", timeout, seed, r.Violations, r.Reproduce)
		}
		return r.OffsetFetchStallMs
	}
	for seed := uint64(1); seed <= 5; seed++ {
		a, b := stall(seed, "20000"), stall(seed, "40000")
		if d := b - a; d < 10000 || d > 30000 {
			t.Errorf("seed %d: stall %d ms at 20 s, %d ms at 40 s: want 10..30 s more", seed, a, b)
		}
	}
}

// TestUnstableBound: LIVE-OFFSET fires when unstable.bound.ms is below
// the stall, and names the member; its default bound
// (transaction.timeout.ms + the cleanup interval + 5 s) holds.
func TestUnstableBound(t *testing.T) {
	sc := mustLookup(t, "unstable")
	r := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: []params.KV{{Key: "unstable.bound.ms", Value: "5000"}}})
	if len(r.Violations) != 1 || r.Violations[0].Invariant != "LIVE-OFFSET" || !strings.Contains(r.Violations[0].Detail, "p2's require_stable offset fetches") {
		t.Fatalf("bound 5 s, stall %d ms: violations %v", r.OffsetFetchStallMs, r.Violations)
	}
	r = mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: []params.KV{{Key: "unstable.bound.ms", Value: strconv.FormatInt(r.OffsetFetchStallMs+1, 10)}}})
	if len(r.Violations) != 0 {
		t.Fatalf("bound 1 ms above the stall: violations %v", r.Violations)
	}
}

// TestUnstableOff: without idempotence there are no transactions and no
// stall; p1 pauses as in eosv2 and p2 writes again what p1 wrote since its
// last commit (INV-DUP) in most seeds.
func TestUnstableOff(t *testing.T) {
	sc := mustLookup(t, "unstable")
	dup := 0
	for seed := uint64(1); seed <= 10; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(false)})
		if r.OffsetFetchStallMs != 0 || r.OffsetFetchUnstable != 0 {
			t.Fatalf("seed %d: stall %d ms, %d unstable answers without transactions", seed, r.OffsetFetchStallMs, r.OffsetFetchUnstable)
		}
		if fired(r)["INV-DUP"] {
			dup++
		}
	}
	if dup < 5 {
		t.Errorf("INV-DUP in %d of 10 seeds without idempotence, want most", dup)
	}
}
