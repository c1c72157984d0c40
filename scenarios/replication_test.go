package scenarios

import "testing"

// lossSeeds runs seeds 1..n of scenario name with sets and counts the
// runs with lost acknowledged records (INV-LOSS) and those with duplicates
// (INV-DUP).
func lossSeeds(t *testing.T, name string, n uint64, sets ...KV) (lost, dup int) {
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
	lost, _ := lossSeeds(t, "acks1", n, KV{"enable.idempotence", "false"})
	t.Logf("acks=1: %d of %d seeds lose acknowledged records", lost, n)
	if lost < int(n)/2 {
		t.Errorf("acks=1: only %d of %d seeds lose acknowledged records", lost, n)
	}
	for _, idem := range []string{"true", "false"} {
		lost, dup := lossSeeds(t, "acks1", n, KV{"enable.idempotence", idem}, KV{"acks", "all"})
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
		lost, _ := lossSeeds(t, "unclean", n, KV{"enable.idempotence", idem})
		t.Logf("unclean election, idempotence=%s: %d of %d seeds lose acknowledged records", idem, lost, n)
		if lost < int(n)/2 {
			t.Errorf("unclean election, idempotence=%s: only %d of %d seeds lose", idem, lost, n)
		}
		lost, _ = lossSeeds(t, "unclean", n, KV{"enable.idempotence", idem}, KV{"unclean.leader.election.enable", "false"})
		t.Logf("no unclean election, idempotence=%s: %d of %d seeds lose", idem, lost, n)
		if lost != 0 {
			t.Errorf("no unclean election, idempotence=%s: %d of %d seeds lose acknowledged records", idem, lost, n)
		}
	}
	lost, _ := lossSeeds(t, "unclean", n/5, KV{"kafka.version", "3.8"})
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
	_, dup := lossSeeds(t, "failover", n, KV{"enable.idempotence", "false"})
	t.Logf("idempotence off: %d of %d seeds duplicate", dup, n)
	if dup < int(n)/2 {
		t.Errorf("idempotence off: only %d of %d seeds duplicate", dup, n)
	}
	lost, dup := lossSeeds(t, "failover", n, KV{"enable.idempotence", "true"})
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
	lost, _ := lossSeeds(t, "isolated", n, KV{"enable.idempotence", "false"})
	t.Logf("acks=1: %d of %d seeds lose acknowledged records", lost, n)
	if lost < int(n)/2 {
		t.Errorf("acks=1: only %d of %d seeds lose", lost, n)
	}
	for _, idem := range []string{"true", "false"} {
		lost, _ := lossSeeds(t, "isolated", n, KV{"enable.idempotence", idem}, KV{"acks", "all"})
		t.Logf("acks=all idempotence=%s: %d seeds lose", idem, lost)
		if lost != 0 {
			t.Errorf("acks=all idempotence=%s: %d of %d seeds lose acknowledged records", idem, lost, n)
		}
	}
}
