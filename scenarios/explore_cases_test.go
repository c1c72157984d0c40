package scenarios

// exploreCases are the violations simulate -explore found (docs/explore.md)
// with idempotence on: counterexample plans in testdata/violations,
// replayed by TestViolationsExplained with the explorer's settings
// (constant latency, the random sources off). Those real Kafka shows are
// documented in their scenario's story; the others were model bugs and
// hold now. zombie's were found with its synthetic input, before it read
// an input topic, and replay with it and the pause.at of then (v2 starts
// at pause.at plus 650 ms): the consumer's start (its first record is
// polled at 0.3 s) moves every send, so their fault times would meet
// other states.
var exploreCases = []violationCase{
	{
		// Two unclean broker restarts with acknowledgements in doubt: the
		// second restart loads the snapshot the first one wrote, which
		// keeps the newest batch only; the head batch's retry gets
		// OUT_OF_ORDER_SEQUENCE_NUMBER and is bumped and appended again.
		plan: "explore-ackloss-dup-restarts.plan", scenario: "ackloss", seed: 1,
		sets:  kv("records", "3", "net.latency", "constant", "net.response_loss", "0"),
		shows: []string{"INV-DUP"},
		doc:   "keeps each producer's newest batch only",
		trace: []string{"p1 epoch bump 0 -> 1 (local)", "b1 append p0 pid=1000 e=1 seq=0..0 n=1 [a0:0] off=2..2"},
	},
	{
		plan: "explore-reorder-dup-restarts.plan", scenario: "reorder", seed: 1,
		sets:  kv("records", "3", "net.latency", "constant", "broker.transient_error", "0"),
		shows: []string{"INV-DUP"},
		doc:   "after two unclean broker restarts the window keeps each producer's newest batch only",
		trace: []string{"OUT_OF_ORDER_SEQUENCE_NUMBER (seq 0 after last 1)", "p1 epoch bump 0 -> 1 (local)"},
	},
	{
		// A producer crash: the new instance's producer id is unknown to
		// the partition; its batch 0 is rejected (a transient error) and
		// batch 1 lands first.
		plan: "explore-reorder-seq-newpid.plan", scenario: "reorder", seed: 1,
		sets:  kv("records", "5", "net.latency", "constant", "broker.transient_error", "0"),
		shows: []string{"INV-SEQ"},
		doc:   "a restarted producer's new producer id, unknown to the partition, can have batch 1 appended before a failed batch 0",
		trace: []string{"b1 append p0 pid=1001 e=0 seq=1..1 n=1 [a0:4] off=2..2"},
	},
	{
		plan: "explore-inflight6-dup-restarts.plan", scenario: "inflight6", seed: 1,
		sets:  kv("max.in.flight.requests.per.connection", "5", "records", "5", "net.latency", "constant", "net.response_loss", "0"),
		shows: []string{"INV-DUP"},
		doc:   "two unclean broker restarts still duplicate",
		trace: []string{"OUT_OF_ORDER_SEQUENCE_NUMBER (seq 0 after last 4)"},
	},
	{
		// 8 sequence numbers: a batch one wrap later repeats a cached
		// batch's range and is answered as its duplicate.
		plan: "explore-wrap-loss-seqbits.plan", scenario: "wrap", seed: 1,
		sets:  kv("sequence.bits", "3", "records", "12", "net.latency", "constant", "net.response_loss", "0"),
		shows: []string{"INV-DEDUP", "INV-LOSS"},
		doc:   "The sequence space must be wider than the window spans",
		trace: []string{"b1 duplicate p0 pid=1000 e=0 seq=0..3 n=4 [a0:8..a0:11] off=0..3"},
	},
	{
		// v1's InitProducerId arrives after v2's: v1 gets the newer epoch
		// and fences v2.
		plan: "explore-zombie-delayed-init.plan", scenario: "zombie", seed: 1,
		sets:  kv("records", "3", "net.latency", "constant", "app.input", "synthetic", "pause.at", "2.9s"),
		shows: []string{"LIVE-PROD"},
		doc:   "if v1's InitProducerId is delayed past v2's",
		trace: []string{"p2 fatal PRODUCER_FENCED: instance stops", "p1 app resumes its input at offset 0", "p1 transaction committed (3 records)"},
	},
	{
		// The same with the scenario's defaults (its input topic), found
		// by the full menu with 1 fault. v2 is fenced as Kafka fences it
		// (LIVE-PROD); v1 used to commit nothing: the application stayed
		// on its newest instance, which had stopped, and no instance read
		// the input (60 records failed, model bug). v1's loop now goes on
		// from the committed position and commits all 60 once.
		plan: "explore-zombie-fenced-by-older.plan", scenario: "zombie", seed: 1,
		sets:  kv("net.latency", "constant"),
		shows: []string{"LIVE-PROD"},
		doc:   "v1 commits the input and nothing is lost or",
		trace: []string{"p2 fatal PRODUCER_FENCED: instance stops", "p1 app resumes its input at offset 0", "p1 transaction committed (10 records)"},
	},
	{
		// The full menu's shortest LIVE-PROD once the one above commits
		// its input: v2 paused past transaction.timeout.ms between its
		// append and its TxnOffsetCommit; the coordinator's timeout abort
		// bumps the epoch and the TxnOffsetCommit is fenced, fatal in the
		// Java client (TxnOffsetCommitHandler). No newer instance exists:
		// LIVE-PROD's spurious fatal, as Kafka does it.
		plan: "explore-zombie-timeout-fence.plan", scenario: "zombie", seed: 1,
		sets:  kv("net.latency", "constant"),
		shows: []string{"LIVE-PROD"},
		trace: []string{"c1 aborts timed-out transactions", "g1 txn-offset-commit group=app-0 pid=42 e=4 offset=40 -> INVALID_PRODUCER_EPOCH", "p2 TxnOffsetCommit INVALID_PRODUCER_EPOCH", "p2 fatal PRODUCER_FENCED: instance stops"},
	},
	{
		// coordfailover with its own links, the full menu's one fault:
		// p1's leader b2 pauses past its fencing with a Produce queued;
		// b3 leads p1, takes the retry and the COMMIT marker; b2 resumes,
		// appends the queued batch to its own log and truncates it away
		// when it follows b3. INV-FENCE judged that append, which was
		// never readable (checker false positive); it judges the final
		// committed log now.
		plan: "explore-coordfailover-stale-leader-fence.plan", scenario: "coordfailover", seed: 1,
		sets:  kv("net.latency", "constant"),
		fixed: []string{"INV-FENCE"},
		trace: []string{"b2 append p1 pid=1000 e=0 seq=1..1 txn n=1 [a0:3] off=1..1", "b2 p1 truncated from offset 2 to 1"},
	},
	{
		// A crashed exactly-once instance restarted and went on sending
		// from where its crashed incarnation was, skipping the records
		// that incarnation had not committed (model bug: INV-EOS); it
		// now resumes from the committed input position. Since the
		// producers find their coordinator with FindCoordinator, v2's
		// lookup releases v1's delayed EndTxn before v2's InitProducerId
		// fences it, so v1's transaction commits and v2 resumes at 3
		// (it resumed at 0 when v1's transaction was aborted).
		plan: "explore-zombie-eos-restart.plan", scenario: "zombie", seed: 1,
		sets:  kv("records", "3", "net.latency", "constant", "app.input", "synthetic", "pause.at", "2.9s"),
		fixed: []string{"INV-EOS", "INV-DUP"},
		trace: []string{"p2 app resumes its input at offset 3"},
	},
	{
		// The same model bug, duplicating instead: the restarted
		// incarnation resent what its crashed one had committed.
		plan: "explore-zombie-dup-restart.plan", scenario: "zombie", seed: 1,
		sets:  kv("records", "3", "net.latency", "constant", "app.input", "synthetic", "pause.at", "2.9s"),
		fixed: []string{"INV-EOS", "INV-DUP"},
		trace: []string{"p2 restarts"},
	},
	{
		// The coordinator is down while v1 starts, and v1 is paused: v2
		// processes the input and commits it; v1's InitProducerId then
		// goes through, and v1 processed the input from 0 again,
		// because the first instance read its input before
		// initTransactions (model bug). Every instance now reads from the
		// committed position after initTransactions; v1, no longer the
		// application's live instance, reads nothing.
		plan: "explore-zombie-late-init.plan", scenario: "zombie", seed: 1,
		sets:  kv("records", "3", "net.latency", "constant", "app.input", "synthetic", "pause.at", "2.9s"),
		fixed: []string{"INV-EOS", "INV-DUP"},
		trace: []string{"p1 producer id 42 epoch 2"}, // transaction version 2: v2's commit bumped the epoch to 1
	},
}

func init() { violationCases = append(violationCases, exploreCases...) }
