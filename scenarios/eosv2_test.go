package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

// TestEOSv2FencedByGeneration: over 200 seeds, the paused instance's
// commit is refused on the generation (commits_fenced_by_generation > 0)
// exactly where its pause lands in an open transaction, which then aborts
// (the only aborted transaction of the run); no record is duplicated, and
// INV-EOS holds on both input partitions across the rebalance.
func TestEOSv2FencedByGeneration(t *testing.T) {
	sc := mustLookup(t, "eosv2")
	seeds := uint64(200)
	if testing.Short() {
		seeds = 40
	}
	fenced := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed})
		for _, v := range r.Violations {
			t.Fatalf("%s: %s\nreproduce: %s", v.Invariant, v.Detail, r.Reproduce)
		}
		if r.Duplicates != 0 || r.ZombieWrite != 0 {
			t.Fatalf("duplicates %d, zombie writes %d\nreproduce: %s", r.Duplicates, r.ZombieWrite, r.Reproduce)
		}
		if (r.CommitsFencedByGeneration > 0) != (r.TxnAborted > 0) {
			t.Fatalf("commits fenced by generation %d, transactions aborted %d: want both or neither\nreproduce: %s", r.CommitsFencedByGeneration, r.TxnAborted, r.Reproduce)
		}
		if r.CommitsFencedByGeneration > 0 {
			fenced++
		}
	}
	t.Logf("%d of %d seeds: the zombie's commit refused on the generation", fenced, seeds)
	if fenced*2 < int(seeds) {
		t.Errorf("%d of %d seeds fenced by generation: want most (the pause window holds open transactions)", fenced, seeds)
	}
}

// TestGroupIDDuplicates: the same schedule with the deprecated
// sendOffsetsToTransaction(offsets, groupId) writes duplicates in a
// fraction of the seeds (nothing checks the zombie's generation), and
// INV-EOS says so.
func TestGroupIDDuplicates(t *testing.T) {
	sc := mustLookup(t, "groupid")
	seeds := uint64(200)
	if testing.Short() {
		seeds = 40
	}
	dup := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed})
		if r.CommitsFencedByGeneration != 0 {
			t.Fatalf("commits fenced by generation %d: the deprecated call carries no generation\nreproduce: %s", r.CommitsFencedByGeneration, r.Reproduce)
		}
		if r.Duplicates > 0 {
			dup++
			if f := fired(r); !f["INV-DUP"] || !f["INV-EOS"] {
				t.Fatalf("duplicates %d without INV-DUP and INV-EOS: %v\nreproduce: %s", r.Duplicates, r.Violations, r.Reproduce)
			}
		}
	}
	t.Logf("%d of %d seeds with duplicates", dup, seeds)
	if dup == 0 {
		t.Errorf("no seed of %d with duplicates", seeds)
	}
}

// TestGroupModesRefused: what a group application cannot run is refused
// in one line naming the key.
func TestGroupModesRefused(t *testing.T) {
	sc := mustLookup(t, "eosv2")
	for _, c := range []struct {
		sets []params.KV
		want string
	}{
		{[]params.KV{{Key: "app.input", Value: "synthetic"}}, "app.mode=exactly-once-v2 with app.instances=2 needs app.input=topic"},
		{[]params.KV{{Key: "app.mode", Value: "exactly-once"}, {Key: "input.partitions", Value: "1"}}, "app.instances=2 needs app.mode=exactly-once-v2, exactly-once-groupid or at-least-once"},
		{[]params.KV{{Key: "app.instances", Value: "17"}}, "app.instances"},
		{[]params.KV{{Key: "session.timeout.ms", Value: "100"}}, "session.timeout.ms"},
		{[]params.KV{{Key: "app.mode", Value: "exactly-twice"}}, "allowed: at-least-once, exactly-once, exactly-once-v2, exactly-once-groupid"},
	} {
		_, err := Run(Spec{Scenario: sc, Seed: 1, Sets: c.sets})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line with %q", c.sets, err, c.want)
		}
	}
}

// TestEOSv2Unstable: a pause that lands between p1's accepted
// TxnOffsetCommit and its EndTxn leaves its offsets pending: p2, the new
// owner, is answered UNSTABLE_OFFSET_COMMIT until p1 wakes and its
// transaction commits (EndTxn checks no generation); p1's next
// transaction's commit is then refused on the generation and aborts.
func TestEOSv2Unstable(t *testing.T) {
	sc := mustLookup(t, "eosv2")
	r := mustRun(t, Spec{Scenario: sc, Seed: 1, PlanText: "format 1\n4.3265s pause p1 25s\nend 2m12s\n"})
	if len(r.Violations) > 0 || r.Duplicates != 0 || r.OffsetFetchUnstable == 0 || r.CommitsFencedByGeneration == 0 {
		t.Fatalf("violations %v, duplicates %d, unstable fetches %d, commits fenced by generation %d\nreproduce: %s",
			r.Violations, r.Duplicates, r.OffsetFetchUnstable, r.CommitsFencedByGeneration, r.Reproduce)
	}
	// p2 waits from its first UNSTABLE_OFFSET_COMMIT answer (15.3 s)
	// until p1 wakes and commits (29.3 s, the pause's end plus a round
	// trip): offset_fetch_stall_ms measures that.
	if s := r.OffsetFetchStallMs; s < 13000 || s > 15000 {
		t.Errorf("offset_fetch_stall_ms %d, want about 14000 (15.3 s to 29.3 s)", s)
	}
}

// TestRebalanceCommitInterval: an at-least-once group application's
// duplicate rate rises with commit.interval.ms: the new owner reads again
// what the paused instance processed since its last commit.
func TestRebalanceCommitInterval(t *testing.T) {
	sc := mustLookup(t, "rebalance")
	seeds := uint64(100)
	if testing.Short() {
		seeds = 20
	}
	last := -1.0
	for _, ci := range []string{"250", "1000", "2500", "5000"} {
		var dup, sent int64
		for seed := uint64(1); seed <= seeds; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: []params.KV{{Key: "commit.interval.ms", Value: ci}}})
			// A record read again can land after later ones of its
			// partition (INV-ORDER); nothing is lost.
			for inv := range fired(r) {
				if inv != "INV-DUP" && inv != "INV-ORDER" {
					t.Fatalf("commit.interval.ms=%s: violations %v, want INV-DUP and INV-ORDER at most\nreproduce: %s", ci, r.Violations, r.Reproduce)
				}
			}
			dup, sent = dup+r.Duplicates, sent+r.Sent
		}
		rate := float64(dup) / float64(sent)
		t.Logf("commit.interval.ms=%s: duplicate rate %.4f (%d/%d)", ci, rate, dup, sent)
		if rate <= last {
			t.Errorf("commit.interval.ms=%s: duplicate rate %.4f, not above %.4f at the shorter interval", ci, rate, last)
		}
		last = rate
	}
}

// TestRebalanceCommitSync: with commit.interval.ms=0 the group
// application commits with commitSync after each poll whose records are
// acknowledged, so a new owner reads again at most the one poll (one
// record, max.poll.records 1) the paused instance had in hand: at most
// one duplicate a run, some runs with one, and fewer than auto-commit
// every 250 ms gives on the same seeds.
func TestRebalanceCommitSync(t *testing.T) {
	sc := mustLookup(t, "rebalance")
	seeds := uint64(60)
	if testing.Short() {
		seeds = 15
	}
	var syncDup, autoDup int64
	for seed := uint64(1); seed <= seeds; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: []params.KV{{Key: "commit.interval.ms", Value: "0"}}})
		for inv := range fired(r) {
			if inv != "INV-DUP" && inv != "INV-ORDER" {
				t.Fatalf("violations %v, want INV-DUP and INV-ORDER at most\nreproduce: %s", r.Violations, r.Reproduce)
			}
		}
		if r.Duplicates > 1 {
			t.Fatalf("%d duplicates, want at most the one record in hand\nreproduce: %s", r.Duplicates, r.Reproduce)
		}
		syncDup += r.Duplicates
		a := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: []params.KV{{Key: "commit.interval.ms", Value: "250"}}})
		autoDup += a.Duplicates
	}
	t.Logf("duplicates over %d seeds: commitSync %d, auto-commit every 250 ms %d", seeds, syncDup, autoDup)
	if syncDup == 0 || syncDup >= autoDup {
		t.Fatalf("duplicates: commitSync %d, auto-commit every 250 ms %d: want some with commitSync, and fewer", syncDup, autoDup)
	}
}
