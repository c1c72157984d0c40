package scenarios

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// violationCase is one of issue 18's "violations to explain": a run with
// idempotence on, tcp mode and no -bug that broke an invariant its
// scenario did not document. It replays the run's realized plan (its fault
// plan plus its random losses as planned drops and rejects, realize.go)
// from testdata/violations, so it reproduces whatever the fault generator
// draws: fault.count plays no part.
type violationCase struct {
	plan     string // file in testdata/violations
	scenario string
	seed     uint64
	sets     []params.KV
	// fixed are the invariants the run broke through a model bug or a
	// checker false positive: they hold now.
	fixed []string
	// shows are the invariants the run breaks as real Kafka does: they
	// still fire, and the scenario's -describe text says so (doc, a phrase
	// of its story).
	shows []string
	doc   string
	// trace lines show the mechanism; each must be in the run's timeline.
	trace []string
}

var violationCases = []violationCase{
	{
		// A lost acknowledgement, then a restart: the at-least-once
		// application sends the record again through the new instance,
		// whose new epoch (or rotated producer id) starts at sequence 0.
		plan: "epochx-dup-resend.plan", scenario: "epochx", seed: 0,
		// Recorded before epochx became transactional: it keeps the
		// fence-only producer it was found with.
		sets:  kv("net.response_loss", "0.1521", "fault.realized", "true", "transaction.records", "0", "producer.whatif.fence_only", "true"),
		shows: []string{"INV-DUP"},
		doc:   "the broker deduplicates within one producer session only",
		trace: []string{
			"b1 send ProduceResp#7 {p0 NONE off=15} -> p1 DROPPED",
			"p1 app-resend a0:15 p0",
			"b1 append p0 pid=1001 e=0 seq=0..0 n=1 [a0:15] off=16..16",
		},
	},
	{
		// A clean broker restart keeps the newest batch of the window;
		// the head batch's retry gets OUT_OF_ORDER_SEQUENCE_NUMBER, and
		// the Java client bumps for it: not Z13 (a bump for a later batch).
		plan: "crossbump-dup-restart.plan", scenario: "crossbump", seed: 0,
		sets:  kv("fault.realized", "true"),
		shows: []string{"INV-DUP"},
		doc:   "a restarted broker keeps each producer's newest batch only",
		trace: []string{
			"fault restart b1 clean",
			"b1 reject p0 pid=1000 e=0 seq=10..10 n=1 [a0:20] OUT_OF_ORDER_SEQUENCE_NUMBER (seq 10 after last 13)",
			"p1 OUT_OF_ORDER_SEQUENCE_NUMBER on p0 seq 10: epoch bump requested",
			"b1 append p0 pid=1000 e=1 seq=0..0 n=1 [a0:20] off=14..14",
		},
	},
	{
		// The rotated producer id's batch 0 fails transiently and batch 1
		// is appended first: an unknown producer id is accepted at any
		// sequence on a partition that holds data.
		plan: "epochx-seq-newpid.plan", scenario: "epochx", seed: 365,
		// Recorded before epochx became transactional (see above).
		sets: kv("broker.transient_error", "0.519", "net.latency", "uniform", "app.idle.ms", "79144", "fault.realized", "true",
			"transaction.records", "0", "producer.whatif.fence_only", "true"),
		shows: []string{"INV-SEQ", "INV-ORDER"},
		doc:   "A rotated producer id is unknown to the partition, which accepts its first batch at any sequence",
		trace: []string{
			"b1 reject p0 pid=1001 e=0 seq=0..0 n=1 [a0:7] NOT_ENOUGH_REPLICAS",
			"b1 append p0 pid=1001 e=0 seq=1..1 n=1 [a0:8] off=7..7",
		},
	},
	{
		// statelost with fault noise: the same restart window as crossbump.
		plan: "statelost-dup-restart.plan", scenario: "statelost", seed: 182,
		shows: []string{"INV-DUP"},
		doc:   "the rebuilt window holds the newest batch only",
		trace: []string{
			"b1 reject p0 pid=1000 e=0 seq=5..5 n=1 [a0:5] OUT_OF_ORDER_SEQUENCE_NUMBER (seq 5 after last 9)",
			"p1 epoch bump 0 -> 1 (local)",
		},
	},
	{
		// statelost with transient errors: a restarted producer's new id
		// is appended at sequence 1 after its batch 0 failed.
		plan: "statelost-seq-newpid.plan", scenario: "statelost", seed: 571,
		sets:  kv("broker.transient_error", "0.1", "fault.realized", "true"),
		shows: []string{"INV-SEQ"},
		doc:   "a restarted producer's new producer id, unknown to the partition, can have batch 1 appended before a failed batch 0",
		trace: []string{
			"b1 reject p0 pid=1001 e=0 seq=0..0 n=1 [a0:14] NOT_ENOUGH_REPLICAS",
			"b1 append p0 pid=1001 e=0 seq=1..1 n=1 [a0:15] off=4..4",
		},
	},
	{
		// An unclean restart replays a batch older than
		// producer.id.expiration.ms, which re-creates its producer's
		// entry, as Kafka's rebuild does: INV-STATE took it for state the
		// log does not imply (checker false positive).
		plan: "expiry-state-replayed.plan", scenario: "expiry", seed: 136,
		sets:  kv("coordinator.next.pid", "1", "send.interval.ms", "3600000"),
		fixed: []string{"INV-STATE"},
		trace: []string{"b1 restarts"},
	},
	{
		// librdkafka policy: batches expire at message.timeout.ms and
		// leave a gap; librdkafka drains and bumps the epoch, where the
		// model kept the old sequence and went fatal on the next batch's
		// OUT_OF_ORDER_SEQUENCE_NUMBER (model bug).
		// librdkafka 2.2.0 retries every retry.backoff.ms (no KIP-580
		// backoff): at 1000 ms the records still expire unsent, as they
		// did when the policy backed off exponentially to 1 s.
		plan: "expiry-rdk-fatal.plan", scenario: "expiry", seed: 17077155990616672464,
		sets:  kv("client.policy", "librdkafka", "request.timeout.ms", "2", "retry.backoff.ms", "1000"),
		fixed: []string{"LIVE-PROD"},
		trace: []string{"DELIVERY_TIMEOUT on p0 leaves a sequence gap: drain and bump the epoch"},
	},
	{
		// Request loss near 1: no AddPartitionsToTxn got through before
		// the records expired. The Java client ends such a transaction
		// without EndTxn; the model sent one, got INVALID_TXN_STATE and
		// went fatal (model bug). The classic protocol (Kafka 3.9): under
		// transaction version 2 the leader adds the partition on the
		// produce path, and this realized plan no longer applies.
		plan: "ackloss-txn-fatal.plan", scenario: "ackloss", seed: 349,
		sets:  kv("transactional.id", "t1", "transaction.records", "5", "net.request_loss", "0.99", "fault.realized", "true", "kafka.version", "3.9"),
		fixed: []string{"LIVE-PROD"},
		trace: []string{
			"p1 abort without EndTxn: no partition was added",
			"p1 epoch bump 0 -> 1 (coordinator)",
		},
	},
}

// TestViolationsExplained replays each case: what was fixed holds, what
// real Kafka shows still fires and is documented, and nothing else
// breaks a safety invariant the scenario does not list.
func TestViolationsExplained(t *testing.T) {
	for _, c := range violationCases {
		t.Run(strings.TrimSuffix(c.plan, ".plan"), func(t *testing.T) {
			t.Parallel()
			sc, err := Lookup(c.scenario)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "violations", c.plan)
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := mustRun(t, Spec{Scenario: sc, Seed: c.seed, Sets: c.sets, PlanText: string(text),
				PlanSource: world.PlanSource{File: path}, KeepTrace: true})
			got := fired(r)
			for _, inv := range c.fixed {
				if got[inv] {
					t.Errorf("%s fired again: %v", inv, r.Violations)
				}
			}
			for _, inv := range c.shows {
				if !got[inv] {
					t.Errorf("%s no longer fires (%v): the case no longer reproduces", inv, r.Violations)
				}
			}
			for inv := range got {
				if !slices.Contains(c.shows, inv) && !slices.Contains(sc.OnShows, inv) {
					t.Errorf("undocumented %s: %v", inv, r.Violations)
				}
			}
			if c.doc != "" {
				described := strings.Join(strings.Fields(sc.Story+" "+sc.ExpectOn+" "+sc.OnNote), " ")
				if !strings.Contains(described, c.doc) {
					t.Errorf("%s's -describe text does not say %q", sc.Name, c.doc)
				}
			}
			timeline := strings.Join(r.Trace, "\n")
			for _, line := range c.trace {
				if !strings.Contains(timeline, line) {
					t.Errorf("the timeline lacks %q", line)
				}
			}
			if t.Failed() {
				t.Logf("reproduce: %s", r.Reproduce)
			}
		})
	}
}

// TestLibrdkafkaAsShipped: the librdkafka policy models the client as it
// ships (v2.2.0; every release to v2.15): an OUT_OF_ORDER_SEQUENCE_NUMBER
// for a batch after the head bumps the epoch and restarts every
// partition, so crossbump's written-but-unacknowledged batch on the other
// partition is appended twice (librdkafka issue #4953). The unmerged fix
// (pull request #4972), a what-if, re-enqueues without the bump and
// duplicates nothing.
func TestLibrdkafkaAsShipped(t *testing.T) {
	sc, err := Lookup("crossbump")
	if err != nil {
		t.Fatal(err)
	}
	n := seedsFor(t)
	for _, c := range []struct {
		whatIf string
		dup    bool
	}{{"false", true}, {"true", false}} {
		dups := 0
		for seed := uint64(1); seed <= n; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: kv("client.policy", "librdkafka", "producer.whatif.librdkafka_no_skip_bump", c.whatIf)})
			if fired(r)[check.InvDup] {
				dups++
				if !c.dup {
					t.Fatalf("with the what-if, seed %d duplicates\nreproduce: %s", seed, r.Reproduce)
				}
			}
		}
		if c.dup && dups == 0 {
			t.Errorf("librdkafka as shipped: no duplicate in %d seeds", n)
		}
		t.Logf("what-if %s: INV-DUP in %d of %d runs", c.whatIf, dups, n)
	}
}
