package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

// TestMemberFaultsFenceByGroup: in eosv2, p1 takes a processing step
// without a poll (slow-poll) or has its heartbeat thread silenced
// (mute-heartbeat) inside a transaction. Past max.poll.interval.ms
// (session.timeout.ms) the group removes p1: its commit is refused on the
// generation and its transaction aborts; below it nothing is fenced and
// nothing aborts. No seed duplicates a record, and INV-EOS holds. The
// slow-poll lands in a transaction of p1's in 89 of the first 100 seeds;
// in the others p1 joined the group after it (the instances' start
// jitter, and the group coordinator lookup before the first JoinGroup)
// and had no transaction to lose: nothing is fenced or aborted.
func TestMemberFaultsFenceByGroup(t *testing.T) {
	sc := mustLookup(t, "eosv2")
	seeds := uint64(100)
	if testing.Short() {
		seeds = 20
	}
	sets := []params.KV{{Key: "records", Value: "400"}, {Key: "max.poll.interval.ms", Value: "10000"}, {Key: "session.timeout.ms", Value: "10000"}}
	for _, c := range []struct {
		plan   string
		fenced bool
	}{
		{"1.9s slow-poll p1 15s\n", true},
		{"1.9s slow-poll p1 8s\n", false},
		{"1.5s mute-heartbeat p1 15s\n", true},
		{"1.5s mute-heartbeat p1 8s\n", false},
	} {
		fenced := 0
		for seed := uint64(1); seed <= seeds; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: sets, PlanText: c.plan})
			for _, v := range r.Violations {
				t.Fatalf("%q: %s: %s\nreproduce: %s", c.plan, v.Invariant, v.Detail, r.Reproduce)
			}
			if r.Duplicates != 0 {
				t.Fatalf("%q: %d duplicates\nreproduce: %s", c.plan, r.Duplicates, r.Reproduce)
			}
			if !c.fenced && (r.CommitsFencedByGeneration != 0 || r.TxnAborted != 0) {
				t.Fatalf("%q: commits fenced by generation %d, transactions aborted %d: want none below the timeout\nreproduce: %s", c.plan, r.CommitsFencedByGeneration, r.TxnAborted, r.Reproduce)
			}
			if c.fenced && (r.CommitsFencedByGeneration > 0) != (r.TxnAborted > 0) {
				t.Fatalf("%q: commits fenced by generation %d, transactions aborted %d: want both or neither\nreproduce: %s", c.plan, r.CommitsFencedByGeneration, r.TxnAborted, r.Reproduce)
			}
			if c.fenced && r.CommitsFencedByGeneration > 0 && r.TxnAborted > 0 {
				fenced++
			}
		}
		t.Logf("%q: %d of %d seeds fenced by generation with an aborted transaction", c.plan, fenced, seeds)
		if c.fenced && fenced*100 < int(seeds)*85 {
			t.Errorf("%q: %d of %d seeds fenced by generation with an aborted transaction, want at least 85%%", c.plan, fenced, seeds)
		}
	}
}

// TestGeneratorMemberFaultsOnlyInGroups: fault.kinds=slow-poll,mute-heartbeat
// draws them in a group application's world (of its instances), and
// nothing in a world without group members.
func TestGeneratorMemberFaultsOnlyInGroups(t *testing.T) {
	kinds := []params.KV{{Key: "fault.count", Value: "6"}, {Key: "fault.kinds", Value: "slow-poll,mute-heartbeat"}}
	r := mustRun(t, Spec{Scenario: mustLookup(t, "eosv2"), Seed: 3, Sets: append(kinds, params.KV{Key: "pause.ms", Value: "0"})})
	if !strings.Contains(r.Plan, "slow-poll p") && !strings.Contains(r.Plan, "mute-heartbeat p") {
		t.Errorf("eosv2 drew no member fault:\n%s", r.Plan)
	}
	r = mustRun(t, Spec{Scenario: mustLookup(t, "ackloss"), Seed: 3, Sets: kinds})
	if strings.Contains(r.Plan, "slow-poll") || strings.Contains(r.Plan, "mute-heartbeat") {
		t.Errorf("ackloss drew a member fault:\n%s", r.Plan)
	}
}
