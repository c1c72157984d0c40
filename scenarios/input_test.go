package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Applications that read an input topic (app.input=topic): the
// consume-transform-produce loop over a consumer per producer instance
// (scenarios/world/world_input.go, docs/consumers.md).

func topicSets(kv ...string) []params.KV {
	sets := []params.KV{{Key: "app.input", Value: "topic"}}
	for i := 0; i+1 < len(kv); i += 2 {
		sets = append(sets, params.KV{Key: kv[i], Value: kv[i+1]})
	}
	return sets
}

// TestInputTopicExactlyOnce: the zombie's exactly-once application reads
// a real input topic; over pauses and seeds the paused instance is
// fenced, and every input record is committed exactly once (INV-EOS, no
// duplicate), each handed over (sent) once at least.
func TestInputTopicExactlyOnce(t *testing.T) {
	sc := mustLookup(t, "zombie")
	seeds := uint64(40)
	if testing.Short() {
		seeds = 10
	}
	for _, pause := range []string{"1000", "5000"} {
		for seed := uint64(1); seed <= seeds; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: topicSets("pause.ms", pause)})
			for _, v := range r.Violations {
				t.Fatalf("%s: %s\nreproduce: %s", v.Invariant, v.Detail, r.Reproduce)
			}
			if r.Fenced == 0 || r.Duplicates != 0 || r.Sent != 60 || r.Appended != 60 {
				t.Fatalf("fenced %d, duplicates %d, sent %d, committed %d (want 60)\nreproduce: %s", r.Fenced, r.Duplicates, r.Sent, r.Appended, r.Reproduce)
			}
		}
	}
}

// TestInputTopicExactlyOnceRestarts: an exactly-once application whose
// instance crashes and restarts (the restart scenario with transactions)
// reads its input again from the committed offsets: every input record
// is committed once.
func TestInputTopicExactlyOnceRestarts(t *testing.T) {
	sc := mustLookup(t, "restart")
	for seed := uint64(1); seed <= 20; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: topicSets("app.mode", "exactly-once", "transactional.id", "t1", "transaction.records", "5")})
		for _, v := range r.Violations {
			t.Fatalf("%s: %s\nreproduce: %s", v.Invariant, v.Detail, r.Reproduce)
		}
		if r.Duplicates != 0 || r.Sent != 40 || r.Appended != 40 {
			t.Fatalf("duplicates %d, sent %d, committed %d (want 40)\nreproduce: %s", r.Duplicates, r.Sent, r.Appended, r.Reproduce)
		}
	}
}

// TestInputTopicAtLeastOnceTakeover: at least once (without transactions),
// the new instance reads from the group's committed offsets, which the
// zombie commits only once its sends are acknowledged: nothing is lost,
// every input record is committed, and what the zombie sent after its
// last commit is sent and committed again in some seeds (duplicates).
func TestInputTopicAtLeastOnceTakeover(t *testing.T) {
	sc := mustLookup(t, "zombie")
	dups := 0
	for seed := uint64(1); seed <= 40; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: alo()})
		f := fired(r)
		if f["INV-LOSS"] || r.Sent != 60 || r.Appended < 60 {
			t.Fatalf("violations %v, sent %d, committed %d (want all 60)\nreproduce: %s", r.Violations, r.Sent, r.Appended, r.Reproduce)
		}
		if r.Duplicates > 0 {
			dups++
		}
	}
	if dups == 0 {
		t.Errorf("no seed of 40 committed a record twice after the takeover")
	}
}

// TestInputTopicSkipsAbortedInput: an input partition that starts with an
// aborted transaction: the read_committed consumer never returns its
// records, so none is processed (sent), at least and exactly once, with
// one and three input partitions. The application consumers' polls reach
// the readers and the checks as r1's do: they returned the 60 input
// records at least, and INV-READ and INV-POS judged them and held.
func TestInputTopicSkipsAbortedInput(t *testing.T) {
	sc := mustLookup(t, "zombie")
	for _, c := range [][]string{
		{"app.mode", "exactly-once"},
		{"app.mode", "at-least-once", "transactional.id", "", "transaction.records", "0"},
		{"app.mode", "at-least-once", "transactional.id", "", "transaction.records", "0", "input.partitions", "3"},
	} {
		for seed := uint64(1); seed <= 10; seed++ {
			pc := &pollCount{}
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: topicSets(append(c, "input.aborted", "7")...),
				Readers: []world.MakeReader{func(*world.Layout) world.Reader { return pc }}})
			if f := fired(r); f["INV-LOSS"] || f["INV-EOS"] || f[check.InvRead] || f[check.InvPos] || r.Sent != 60 || r.Appended < 60 {
				t.Fatalf("%v: violations %v, sent %d, committed %d (want the 60 input records, none of the 7 aborted)\nreproduce: %s", c, r.Violations, r.Sent, r.Appended, r.Reproduce)
			}
			if pc.records < 60 {
				t.Fatalf("%v: the application consumers' polls returned %d records to the readers, want the 60 input records at least\nreproduce: %s", c, pc.records, r.Reproduce)
			}
		}
	}
}

// TestInputTopicRefused: what the input topic cannot run yet is refused
// in one line naming the key.
func TestInputTopicRefused(t *testing.T) {
	sc := mustLookup(t, "zombie")
	for _, c := range []struct {
		sets []params.KV
		want string
	}{
		{topicSets("input.partitions", "2"), "input.partitions=2 needs app.mode=at-least-once"},
		{topicSets("input.partitions", "3", "app.mode", "exactly-once"), "input.partitions=3 needs app.mode=at-least-once"},
	} {
		_, err := Run(Spec{Scenario: sc, Seed: 1, Sets: c.sets})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line with %q", c.sets, err, c.want)
		}
	}
}

// TestInputTopicDeterministic: the same seed gives the same trace, with
// the consumers' fetches on the wire.
func TestInputTopicDeterministic(t *testing.T) {
	sc := mustLookup(t, "zombie")
	for seed := uint64(1); seed <= 3; seed++ {
		spec := Spec{Scenario: sc, Seed: seed, Sets: append(alo(), params.KV{Key: "input.partitions", Value: "2"})}
		a, b := mustRun(t, spec), mustRun(t, spec)
		if a.TraceHash != b.TraceHash {
			t.Fatalf("seed %d: trace hashes %s and %s", seed, a.TraceHash, b.TraceHash)
		}
		syn := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: []params.KV{{Key: "app.mode", Value: "at-least-once"}}})
		if syn.TraceHash == a.TraceHash {
			t.Fatalf("seed %d: the topic input's trace is the synthetic one's", seed)
		}
	}
}

// alo is the zombie at least once without transactions, reading the
// input topic: the new instance gets a new producer id.
func alo() []params.KV {
	return topicSets("app.mode", "at-least-once", "transactional.id", "", "transaction.records", "0")
}

func mustLookup(t *testing.T, name string) *Scenario {
	t.Helper()
	sc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestInputTopicCommitsAfterAcks: at least once, the application commits
// a poll's offset only once the record it made is acknowledged. Without
// idempotence the zombie's late write lands after its replacement's, so a
// commit before the acknowledgement would let the replacement skip the
// zombie's record in flight and commit the next ones first (INV-ORDER, as
// seed 1 showed when the commit came with the send); committed after the
// acknowledgement, the replacement sends that record again first, and
// the zombie's copy is a duplicate (INV-DUP) but never out of order.
func TestInputTopicCommitsAfterAcks(t *testing.T) {
	sc := mustLookup(t, "zombie")
	for seed := uint64(1); seed <= 20; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: append(topicSets(), idem(false)...)})
		if f := fired(r); f["INV-ORDER"] || f["INV-LOSS"] || r.Appended < 60 {
			t.Fatalf("violations %v, committed %d (want all 60, in order)\nreproduce: %s", r.Violations, r.Appended, r.Reproduce)
		}
	}
}

// TestInputTopicReplicatedFailover: in a replicated world (three brokers,
// replication.factor=3) the input topic is on every replica, committed,
// before the run. The leader of the input partition (p1, on b2) crashes
// at 0 s, before any follower fetched from it or the consumers' first
// fetch reached it; the controller fences b2 and elects another leader,
// which holds the input as committed data (with the input on the leader
// only, the new leader's log is empty and nothing is processed):
// every input record is read from it and processed, exactly once with
// exactly-once, at least once with at-least-once.
func TestInputTopicReplicatedFailover(t *testing.T) {
	sc := mustLookup(t, "zombie")
	const plan = "format 1\n0s crash b2\n20s restart b2\nend 25s\n"
	repl := []string{"brokers", "3", "replication.factor", "3"}
	for _, c := range []struct {
		name string
		sets []params.KV
	}{
		{"exactly-once", topicSets(repl...)},
		{"at-least-once", append(alo(), topicSets(repl...)[1:]...)},
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: c.sets, PlanText: plan, KeepTrace: true})
			elected, fetched := false, false
			for _, l := range r.Trace {
				elected = elected || strings.Contains(l, "n1 p1 leader b")
				fetched = fetched || elected && strings.Contains(l, "CFetchResp") && strings.Contains(l, "hw=60 lso=60 n=1 [0..59]")
			}
			if !elected || !fetched {
				t.Fatalf("%s seed %d: elected %v, read from the new leader %v: the run no longer fails the input partition over\nreproduce: %s", c.name, seed, elected, fetched, r.Reproduce)
			}
			f := fired(r)
			if f["INV-LOSS"] || r.Sent != 60 || r.Appended < 60 || c.name == "exactly-once" && (len(r.Violations) > 0 || r.Appended != 60) {
				t.Fatalf("%s seed %d: violations %v, sent %d, committed %d (want the 60 input records)\nreproduce: %s", c.name, seed, r.Violations, r.Sent, r.Appended, r.Reproduce)
			}
		}
	}
}

// TestInputTopicAtLeastOnceTransactions: at least once with transactions
// (zombie's contrast), the loop commits its consumer offsets after each
// commitTransaction and reads again from them after an abort: with
// random faults nothing is lost, and when the zombie's commit lands
// while its pause hides the answer (zombie's pause.at is 3.2s: the topic
// input starts sending 300 ms later than the synthetic one, after its
// consumer's ListOffsets and first fetch), the new instance reads those records
// again from the older committed offsets and commits them twice.
func TestInputTopicAtLeastOnceTransactions(t *testing.T) {
	sc := mustLookup(t, "zombie")
	for seed := uint64(1); seed <= 30; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: topicSets("app.mode", "at-least-once", "fault.count", "4")})
		// LIVE-PROD: an instance stopped fenced with no newer one (the
		// zombie's story: its spurious fatal), with the input unread.
		if f := fired(r); f["INV-LOSS"] || !f["LIVE-PROD"] && r.Appended < 60 {
			t.Fatalf("violations %v, committed %d (want all 60)\nreproduce: %s", r.Violations, r.Appended, r.Reproduce)
		}
	}
	r := mustRun(t, Spec{Scenario: sc, Seed: 48, Sets: topicSets("app.mode", "at-least-once")})
	if r.Duplicates == 0 || !fired(r)["INV-DUP"] || fired(r)["INV-LOSS"] {
		t.Fatalf("seed 48: duplicates %d, violations %v; want the zombie's committed transaction read and committed again\nreproduce: %s", r.Duplicates, r.Violations, r.Reproduce)
	}
}
