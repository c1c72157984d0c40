package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/check"
)

// crossedBoundary reports whether the EndTxn a late rule held reached the
// coordinator while a later transaction was open: the last coordinator
// state before its arrival is Ongoing. It also reports whether the held
// request was found at all.
func crossedBoundary(trace []string) (crossed, found bool) {
	corr := ""
	for _, l := range trace {
		if i := strings.Index(l, " holds EndTxn#"); i >= 0 {
			rest := l[i+len(" holds EndTxn#"):]
			corr = rest[:strings.IndexByte(rest, ' ')]
			break
		}
	}
	if corr == "" {
		return false, false
	}
	last := ""
	for _, l := range trace {
		if strings.Contains(l, " c1 recv EndTxn#"+corr+" ") {
			return strings.Contains(last, " Ongoing"), true
		}
		if strings.Contains(l, " c1 txn t1 ") {
			last = l
		}
	}
	return false, false
}

// TestTxnLate: under the classic protocol (Kafka 3.9) a held EndTxn that
// reaches the coordinator during a later transaction breaks INV-TXN in
// every run (aborted read, torn transaction or lost write), and one that
// arrives between transactions breaks nothing; under transaction version
// 2 (4.1) nothing breaks, crossing or not (issue: KAFKA-17754; KIP-890
// part 2 fences the stale EndTxn by the epoch).
func TestTxnLate(t *testing.T) {
	sc, err := Lookup("txnlate")
	if err != nil {
		t.Fatal(err)
	}
	n := seedsFor(t)
	// classic: the client runs the classic protocol against the version's
	// cluster. franz-go runs what the cluster finalizes (v1.19.2 and later,
	// model/client/policy_franzgo.go), librdkafka 2.2.0 the classic one.
	for _, c := range []struct {
		version, policy string
		classic         bool
	}{
		{"3.9", "java", true}, {"4.1", "java", false},
		{"3.9", "franz-go", true}, {"4.1", "franz-go", false},
		{"4.1", "librdkafka", true},
	} {
		crossings := 0
		for seed := uint64(1); seed <= n; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: kv("kafka.version", c.version, "client.policy", c.policy), KeepTrace: true})
			crossed, found := crossedBoundary(r.Trace)
			if !found {
				t.Fatalf("kafka %s %s seed %d: the held EndTxn never reached the coordinator\nreproduce: %s", c.version, c.policy, seed, r.Reproduce)
			}
			if crossed {
				crossings++
			}
			broke := fired(r)[check.InvTxn]
			switch {
			case c.classic && crossed && !broke:
				t.Errorf("kafka %s %s seed %d: the late EndTxn crossed into a later transaction but INV-TXN holds (%v)\nreproduce: %s", c.version, c.policy, seed, r.Violations, r.Reproduce)
			case c.classic && !crossed && broke:
				t.Errorf("kafka %s %s seed %d: the late EndTxn arrived between transactions, yet INV-TXN fires (%v)\nreproduce: %s", c.version, c.policy, seed, r.Violations, r.Reproduce)
			case !c.classic && len(r.Violations) > 0:
				t.Errorf("kafka %s %s seed %d: %v\nreproduce: %s", c.version, c.policy, seed, r.Violations, r.Reproduce)
			}
		}
		if crossings < int(n)/4 {
			t.Errorf("kafka %s %s: only %d of %d runs crossed a transaction boundary: the test says little", c.version, c.policy, crossings, n)
		}
		t.Logf("kafka %s %s: %d of %d runs crossed a boundary", c.version, c.policy, crossings, n)
	}
}

// TestHanging: a batch that arrives after its transaction's abort leaves
// the last stable offset stuck on Kafka 3.5 (LIVE-LSO and INV-FENCE fail
// in every run, KAFKA-14053), while 3.6's verification and 4.0's and
// 4.1's transaction version 2 refuse it: under transaction version 2 the
// producer's abort of a transaction the coordinator never saw bumps the
// epoch (KAFKA-18464, 4.0.0) instead of fencing the producer, so no
// invariant fails (docs/versions.md).
func TestHanging(t *testing.T) {
	sc, err := Lookup("hanging")
	if err != nil {
		t.Fatal(err)
	}
	n := seedsFor(t)
	for _, v := range []string{"3.5", "3.6", "4.0", "4.1"} {
		want := ""
		if v == "3.5" {
			want = "INV-FENCE LIVE-LSO LIVE-READ" // LIVE-READ: the consumer r1 waits behind the hanging transaction
		}
		for seed := uint64(1); seed <= n; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: kv("kafka.version", v)})
			var got []string
			for inv := range fired(r) {
				got = append(got, inv)
			}
			slices.Sort(got)
			if strings.Join(got, " ") != want {
				t.Fatalf("kafka %s seed %d: violated %v, want %q\nreproduce: %s", v, seed, got, want, r.Reproduce)
			}
			if v >= "4.0" && r.Errors["PRODUCER_FENCED"] != 0 {
				t.Fatalf("kafka %s seed %d: errors %v: the abort of a transaction with no partitions was fenced\nreproduce: %s", v, seed, r.Errors, r.Reproduce)
			}
		}
	}
}

// TestTxnRetryWakes: a transactional request answered with a retriable
// error (here AddPartitionsToTxn's CONCURRENT_TRANSACTIONS while markers
// travel to a slow leader) is sent again after retry.backoff.ms even when
// nothing else wakes the producer (before the fix this seed ended with 32
// records unresolved: LIVE-PROD).
func TestTxnRetryWakes(t *testing.T) {
	sc, err := Lookup("txnlate")
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, Spec{Scenario: sc, Seed: 8, Sets: kv("fault.count", "3")})
	if fired(r)[check.LiveProd] || r.Pending != 0 {
		t.Fatalf("pending %d, violations %v\nreproduce: %s", r.Pending, r.Violations, r.Reproduce)
	}
}

// TestMarkersFollowLeaders: with replicated partitions and broker
// crashes, the coordinator sends each marker to the partition's current
// leader (its metadata cache follows the controller's publications;
// TransactionMarkerChannelManager.addTxnMarkersToBrokerQueue),
// so a transaction whose partition moved still completes. Before, markers
// went to the partition's first leader: seed 4 left records unresolved
// (LIVE-PROD) and seeds 11, 15, 22, 39 and 40 lost committed records
// (INV-LOSS).
func TestMarkersFollowLeaders(t *testing.T) {
	sc, err := Lookup("txnlate")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{4, 11, 15, 22, 39, 40} {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: kv("brokers", "3", "partitions", "3", "fault.count", "4", "fault.kinds", "crash")})
		if len(r.Violations) > 0 {
			t.Errorf("seed %d: %v\nreproduce: %s", seed, r.Violations, r.Reproduce)
		}
	}
}

// TestTxnTimeoutByVersion: the coordinator aborts a transaction that
// outlived transaction.timeout.ms and fences its producer. Under the
// classic protocol (3.9, the scenario's default) the producer is fenced
// for good; under transaction version 2, Kafka 4.0 bumps the epoch twice
// (KAFKA-19367), so the producer's abort at its old epoch is fenced too;
// Kafka 4.1 bumps once and the abort is a retry, so the producer carries
// on (docs/versions.md).
func TestTxnTimeoutByVersion(t *testing.T) {
	sc, err := Lookup("txntimeout")
	if err != nil {
		t.Fatal(err)
	}
	n := seedsFor(t)
	for _, c := range []struct {
		version string
		fenced  bool
	}{{"3.9", true}, {"4.0", true}, {"4.1", false}} {
		for seed := uint64(1); seed <= n; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: kv("kafka.version", c.version)})
			f := fired(r)
			if f[check.LiveProd] != c.fenced || len(f) > 1 || (len(f) == 1 && !f[check.LiveProd]) {
				t.Fatalf("kafka %s seed %d: violated %v, want LIVE-PROD only %v\nreproduce: %s", c.version, seed, r.Violations, c.fenced, r.Reproduce)
			}
		}
	}
}

// TestTransactionalIDExpiry: a transactional producer that idles longer
// than transactional.id.expiration.ms finds its transactional id
// forgotten; its next write gets INVALID_PRODUCER_ID_MAPPING. The 3.9
// Java client aborts and bumps the epoch and carries on; from the 4.0
// client the error is fatal (KAFKA-18019), so the instance stops
// (docs/versions.md).
func TestTransactionalIDExpiry(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		version string
		fatal   bool
	}{{"3.9", false}, {"4.0", true}, {"4.1", true}} {
		r := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: kv("kafka.version", c.version, "net.response_loss", "0",
			"transactional.id", "t1", "transaction.records", "5", "records", "10", "app.idle.after", "5", "app.idle.ms", "20000",
			"transactional.id.expiration.ms", "5000", "transaction.remove.expired.transaction.cleanup.interval.ms", "1000")})
		if r.Errors["INVALID_PRODUCER_ID_MAPPING"] == 0 {
			t.Fatalf("kafka %s: the idle producer never met its expired transactional id (errors %v)\nreproduce: %s", c.version, r.Errors, r.Reproduce)
		}
		if got := r.Errors["INVALID_PRODUCER_ID_MAPPING(fatal)"] != 0; got != c.fatal {
			t.Errorf("kafka %s: INVALID_PRODUCER_ID_MAPPING fatal %v, want %v (errors %v)\nreproduce: %s", c.version, got, c.fatal, r.Errors, r.Reproduce)
		}
	}
}

// TestOffsetsCommitByVersion: an exactly-once application commits its
// input position inside its transaction. The 3.9 client adds the group's
// offsets partition with AddOffsetsToTxn to the transaction coordinator,
// then sends TxnOffsetCommit; under transaction version 2 (4.0 and later,
// KIP-890 part 2) it sends TxnOffsetCommit v5 alone and the group
// coordinator adds the offsets partition itself (docs/versions.md).
func TestOffsetsCommitByVersion(t *testing.T) {
	sc, err := Lookup("zombie")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"3.9", "4.1"} {
		r := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: kv("kafka.version", v), KeepTrace: true})
		var addOffsets, v5, groupAdds int
		for _, l := range r.Trace {
			switch {
			case strings.Contains(l, " send AddOffsetsToTxn#"):
				addOffsets++
			case strings.Contains(l, " send TxnOffsetCommit#") && strings.HasSuffix(l, " v5 -> g1"):
				v5++
			case strings.Contains(l, " g1 send AddPartitions txn="):
				groupAdds++
			}
		}
		tv2 := v == "4.1"
		if (addOffsets > 0) == tv2 || (v5 > 0) != tv2 || (groupAdds > 0) != tv2 || len(r.Violations) != 0 {
			t.Errorf("kafka %s: %d AddOffsetsToTxn, %d TxnOffsetCommit v5, %d implicit adds by g1, violations %v\nreproduce: %s",
				v, addOffsets, v5, groupAdds, r.Violations, r.Reproduce)
		}
	}
}

// TestMarkersOwedKeepRunAlive: a run is not over while the transaction
// coordinator still owes a committed transaction's markers: its retries
// are foreground work. Before, hanging's seeds 6, 900, 959, 1467 and 1682
// with fault.count=4 ended "drained" at a broker's restart while a marker
// retry was due, and INV-LOSS reported the committed transaction's
// records as lost.
func TestMarkersOwedKeepRunAlive(t *testing.T) {
	sc, err := Lookup("hanging")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{6, 900, 959, 1467, 1682} {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: kv("fault.count", "4")})
		if fired(r)[check.InvLoss] {
			t.Errorf("seed %d: %v\nreproduce: %s", seed, r.Violations, r.Reproduce)
		}
	}
}

// TestSlowTransactionLogWrite runs the selfcheck triple (seed 1's triple
// 549) whose coordinator panicked with "illegal transaction transition
// Ongoing -> CompleteCommit": with a __transaction_state write of 7.5
// simulated minutes, the producer's AddPartitionsToTxn retries arrived
// while the first attempt's Ongoing was being written, and each started
// another write of it, whose completion later applied a stale
// CompleteCommit (model/coordinator/pendingwrite_test.go has the
// sequence). Now the retries are refused with CONCURRENT_TRANSACTIONS and
// the run drains with every invariant kept.
func TestSlowTransactionLogWrite(t *testing.T) {
	sc, err := Lookup("epochx")
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, Spec{Scenario: sc, Seed: 6251593845190885, MaxEvents: 200000, Sets: kv("enable.idempotence", "true",
		"net.latency.tail_prob", "0", "coordinator.bug.no_rotate", "false", "sequence.bits", "11",
		"request.timeout.ms", "2147483647", "coordinator.log.append.time", "7m32.372083532s")})
	if r.Stop != "drained" || r.HasViolations() {
		t.Errorf("stop %s after %d events, violations %v\nreproduce: %s", r.Stop, r.Events, r.Violations, r.Reproduce)
	}
}
