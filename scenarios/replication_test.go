package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// lossSeeds runs seeds 1..n of scenario name with sets and counts the
// runs with lost acknowledged records (INV-LOSS) and those with duplicates
// (INV-DUP).
func lossSeeds(t *testing.T, name string, n uint64, sets ...params.KV) (lost, dup int) {
	t.Helper()
	sc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= n; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: sets})
		f := fired(r)
		if f["INV-LOSS"] {
			lost++
		}
		if f["INV-DUP"] {
			dup++
		}
		if r.Stop != "drained" {
			t.Fatalf("%s seed %d %v: stopped %s", name, seed, sets, r.Stop)
		}
	}
	return lost, dup
}

// TestAcks1 holds scenario acks1 to its story over 200 seeds: acks=1
// loses acknowledged records in the failover; acks=all with
// min.insync.replicas=2 never does, with or without idempotence.
func TestAcks1(t *testing.T) {
	t.Parallel()
	n := seedsFor(t)
	lost, _ := lossSeeds(t, "acks1", n, params.KV{Key: "enable.idempotence", Value: "false"})
	t.Logf("acks=1: %d of %d seeds lose acknowledged records", lost, n)
	if lost < int(n)/2 {
		t.Errorf("acks=1: only %d of %d seeds lose acknowledged records", lost, n)
	}
	for _, idem := range []string{"true", "false"} {
		lost, dup := lossSeeds(t, "acks1", n, params.KV{Key: "enable.idempotence", Value: idem}, params.KV{Key: "acks", Value: "all"})
		t.Logf("acks=all min.insync.replicas=2 idempotence=%s: %d seeds lose, %d duplicate", idem, lost, dup)
		if lost != 0 {
			t.Errorf("acks=all min.insync.replicas=2 idempotence=%s: %d of %d seeds lose acknowledged records", idem, lost, n)
		}
		if idem == "true" && dup != 0 {
			t.Errorf("idempotence on: %d seeds duplicate across the failover", dup)
		}
	}
}

// TestUnclean holds scenario unclean to its story over 200 seeds: with
// unclean.leader.election.enable acknowledged acks=all records are lost;
// without it, or with a KRaft controller before 3.9 (which ignores it),
// none are.
func TestUnclean(t *testing.T) {
	t.Parallel()
	n := seedsFor(t)
	for _, idem := range []string{"true", "false"} {
		lost, _ := lossSeeds(t, "unclean", n, params.KV{Key: "enable.idempotence", Value: idem})
		t.Logf("unclean election, idempotence=%s: %d of %d seeds lose acknowledged records", idem, lost, n)
		if lost < int(n)/2 {
			t.Errorf("unclean election, idempotence=%s: only %d of %d seeds lose", idem, lost, n)
		}
		lost, _ = lossSeeds(t, "unclean", n, params.KV{Key: "enable.idempotence", Value: idem}, params.KV{Key: "unclean.leader.election.enable", Value: "false"})
		t.Logf("no unclean election, idempotence=%s: %d of %d seeds lose", idem, lost, n)
		if lost != 0 {
			t.Errorf("no unclean election, idempotence=%s: %d of %d seeds lose acknowledged records", idem, lost, n)
		}
	}
	lost, _ := lossSeeds(t, "unclean", n/5, params.KV{Key: "kafka.version", Value: "3.8"})
	if lost != 0 {
		t.Errorf("kafka.version=3.8 (unclean election ignored under KRaft): %d seeds lose", lost)
	}
}

// TestFailover holds scenario failover to its story over 200 seeds:
// without idempotence retries to the new leader duplicate; with it no
// safety invariant fails.
func TestFailover(t *testing.T) {
	t.Parallel()
	n := seedsFor(t)
	_, dup := lossSeeds(t, "failover", n, params.KV{Key: "enable.idempotence", Value: "false"})
	t.Logf("idempotence off: %d of %d seeds duplicate", dup, n)
	if dup < int(n)/2 {
		t.Errorf("idempotence off: only %d of %d seeds duplicate", dup, n)
	}
	lost, dup := lossSeeds(t, "failover", n, params.KV{Key: "enable.idempotence", Value: "true"})
	t.Logf("idempotence on: %d seeds lose, %d duplicate", lost, dup)
	if lost != 0 || dup != 0 {
		t.Errorf("idempotence on: %d seeds lose and %d duplicate of %d", lost, dup, n)
	}
}

// TestIsolated holds scenario isolated to its story over 200 seeds: with
// acks=1 the writes a cut-off leader acknowledged are truncated; with
// acks=all nothing acknowledged is lost.
func TestIsolated(t *testing.T) {
	t.Parallel()
	n := seedsFor(t)
	lost, _ := lossSeeds(t, "isolated", n, params.KV{Key: "enable.idempotence", Value: "false"})
	t.Logf("acks=1: %d of %d seeds lose acknowledged records", lost, n)
	if lost < int(n)/2 {
		t.Errorf("acks=1: only %d of %d seeds lose", lost, n)
	}
	for _, idem := range []string{"true", "false"} {
		lost, _ := lossSeeds(t, "isolated", n, params.KV{Key: "enable.idempotence", Value: idem}, params.KV{Key: "acks", Value: "all"})
		t.Logf("acks=all idempotence=%s: %d seeds lose", idem, lost)
		if lost != 0 {
			t.Errorf("acks=all idempotence=%s: %d of %d seeds lose acknowledged records", idem, lost, n)
		}
	}
}

// TestVersionRuleR22: the leader's ISR shrinks below min.insync.replicas
// (followers cut off) with an acks=all write waiting. Before 3.7 the high
// watermark still advances and the write ends
// NOT_ENOUGH_REPLICAS_AFTER_APPEND; from 3.7 (KAFKA-15583) it does not, and
// the write waits (until the request times out). Both refuse later
// writes with NOT_ENOUGH_REPLICAS.
func TestVersionRuleR22(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"3.6", "4.1"} {
		r := mustRun(t, Spec{Scenario: sc, Seed: 1, PlanText: "1s partition b1 | b2 b3\n60s heal b1 | b2 b3\n", Sets: []params.KV{
			{Key: "brokers", Value: "3"}, {Key: "min.insync.replicas", Value: "2"}, {Key: "replica.lag.time.max.ms", Value: "4000"}, {Key: "net.response_loss", Value: "0"},
			{Key: "records", Value: "20"}, {Key: "send.interval.ms", Value: "500"}, {Key: "request.timeout.ms", Value: "30000"}, {Key: "broker.version", Value: v}}})
		after := r.Errors["NOT_ENOUGH_REPLICAS_AFTER_APPEND"]
		if (v == "3.6") != (after > 0) || r.Errors["NOT_ENOUGH_REPLICAS"] == 0 {
			t.Errorf("broker.version=%s: errors %v", v, r.Errors)
		}
		if len(r.Violations) > 0 || r.Acked != 20 {
			t.Errorf("broker.version=%s: acked %d, violations %v", v, r.Acked, r.Violations)
		}
	}
}

// TestReplicationFactorRange: a replication factor above the brokers, or
// 0, is refused with one line naming the key.
func TestReplicationFactorRange(t *testing.T) {
	sc, _ := Lookup("ackloss")
	for _, f := range []string{"0", "2"} {
		_, err := Resolve(Spec{Scenario: sc, Sets: []params.KV{{Key: "replication.factor", Value: f}}})
		if err == nil || !strings.HasPrefix(err.Error(), "replication.factor="+f+" is out of range") {
			t.Errorf("replication.factor=%s with one broker: %v", f, err)
		}
	}
	if _, err := Resolve(Spec{Scenario: sc, Sets: []params.KV{{Key: "brokers", Value: "3"}, {Key: "replication.factor", Value: "2"}}}); err != nil {
		t.Errorf("replication.factor=2 with three brokers: %v", err)
	}
}

// TestCoordFailover: the transaction coordinator's broker dies at a random
// point of the run, often mid-commit; the coordinator on the new
// __transaction_state leader loads the log, completes what was in
// PrepareCommit, and no invariant fails in 200 seeds. Some seeds must
// reload a PrepareCommit (the case the scenario is about).
func TestCoordFailover(t *testing.T) {
	sc, err := Lookup("coordfailover")
	if err != nil {
		t.Fatal(err)
	}
	n := seedsFor(t)
	midCommit, moved := 0, 0
	for seed := uint64(1); seed <= n; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, KeepTrace: true})
		if len(r.Violations) > 0 {
			t.Fatalf("seed %d: %v\nreproduce: %s", seed, r.Violations, r.Reproduce)
		}
		for _, l := range r.Trace {
			if strings.Contains(l, " c1 moves to ") {
				moved++
			}
			if strings.Contains(l, " PrepareCommit ") && strings.HasSuffix(l, "(loaded)") {
				midCommit++
			}
		}
	}
	if moved < int(n) || midCommit == 0 {
		t.Errorf("%d of %d runs moved the coordinator, %d reloaded a PrepareCommit", moved, n, midCommit)
	}
	t.Logf("%d of %d runs moved the coordinator; %d reloaded a PrepareCommit", moved, n, midCommit)
}

// TestCoordFailoverOldMarkerRefused: a marker the old coordinator sent,
// held in the network past the failover, reaches its partition after the
// new coordinator's markers and is refused: TRANSACTION_COORDINATOR_FENCED
// under the classic protocol (the partition has seen coordinator epoch 1
// for the producer, ProducerAppendInfo.appendEndTxnMarker),
// INVALID_PRODUCER_EPOCH under transaction version
// 2 (the producer's epoch moved on first). Nothing fails.
func TestCoordFailoverOldMarkerRefused(t *testing.T) {
	sc, err := Lookup("coordfailover")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "coordfailover", "old-marker.plan")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]string{"3.9": "TRANSACTION_COORDINATOR_FENCED", "4.1": "INVALID_PRODUCER_EPOCH"} {
		r := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: kv("kafka.version", v), PlanText: string(text), PlanSource: world.PlanSource{File: path}, KeepTrace: true})
		if len(r.Violations) > 0 {
			t.Errorf("kafka %s: %v", v, r.Violations)
		}
		reloaded, refused := false, false
		for _, l := range r.Trace {
			reloaded = reloaded || strings.Contains(l, " PrepareCommit ") && strings.HasSuffix(l, "(loaded)")
			refused = refused || strings.Contains(l, " b2 marker COMMIT p1 ") && strings.HasSuffix(l, "-> "+want)
		}
		if !reloaded || !refused {
			t.Errorf("kafka %s: PrepareCommit reloaded %v, old marker refused with %s %v\nreproduce: %s", v, reloaded, want, refused, r.Reproduce)
		}
	}
}

// TestSettleRespectsEventLimit: the replication settle phase after a run
// obeys the run's event limit (selfcheck seed 3's triple 972 ran it
// without end: a lossy server network and a huge request timeout).
func TestSettleRespectsEventLimit(t *testing.T) {
	sc, err := Lookup("coordfailover")
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, Spec{Scenario: sc, Seed: 4006970495095637, MaxEvents: 200000, Sets: kv("transactional.id", "t1", "net.server_loss", "0.3267",
		"kafka.version", "3.7", "net.latency.base", "148.273us", "request.timeout.ms", "652546391")})
	if r.Stop != "event-limit" || r.Events > 200000 {
		t.Fatalf("stop %s after %d events", r.Stop, r.Events)
	}
}
