package check

import (
	"encoding/json"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestCounts: the tallies of a small run without idempotence, and the
// violations they come with (the former model checker's counts case).
func TestCounts(t *testing.T) {
	r := newRun(Config{})
	rec := func(n int64) model.RecordID { return model.RecordID{App: 0, N: n} }
	for range 4 {
		r.send(0, 0)
	}
	r.resend(0, 0) // a resend is not a new record
	r.outcome(model.Outcome{ID: rec(0), Offset: 0})
	r.outcome(model.Outcome{ID: rec(1), Offset: 2})
	r.outcome(model.Outcome{ID: rec(2), Offset: 9}) // acknowledged, never appended
	r.outcome(model.Outcome{ID: rec(3), Err: model.ErrDeliveryTimeout, Offset: -1})
	for _, n := range []int64{0, 1, 1, 0} { // the last two are duplicates
		b := model.Batch{PID: model.NoProducerID, Records: []model.Record{{ID: rec(n)}}}
		r.appendBatch(0, b)
	}
	counts, vs := r.end(10, 1, "drained", 0)
	want := Counts{Sent: 4, Acked: 3, Failed: 1, Pending: 1, Appended: 4, Duplicates: 2, LostAcked: 1}
	if counts != want {
		t.Fatalf("counts %+v, want %+v", counts, want)
	}
	if got := names(vs); got != "INV-DUP,INV-DUP,INV-LOSS,LIVE-PROD" { // a0:2 is not in the log: INV-LOSS alone
		t.Fatalf("violations %q (%v)", got, vs)
	}
}

// TestOutcomeAnyInstanceWins: a record acknowledged by any instance counts
// as acknowledged, whatever order the outcomes come in, and once.
func TestOutcomeAnyInstanceWins(t *testing.T) {
	r := newRun(Config{})
	fail := func(n int64) model.Outcome {
		return model.Outcome{ID: model.RecordID{N: n}, Err: model.ErrProducerFenced, Offset: -1, At: 1}
	}
	r.appendBatch(1, plain(0, 0, 0, 1, 2))
	r.outcome(fail(0))
	r.outcome(acked(2, 0, 0, 0, 0)) // failed, then acknowledged by a newer instance
	r.outcome(acked(3, 0, 1, 0, 1))
	r.outcome(fail(1)) // acknowledged, then failed by an older one
	r.outcome(fail(2))
	r.outcome(fail(2))
	counts, vs := r.end(4, 0, "drained", 0)
	if counts.Acked != 2 || counts.Failed != 1 {
		t.Errorf("acked %d failed %d, want 2 and 1", counts.Acked, counts.Failed)
	}
	if len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
}

// TestTransactions: read_committed: a transaction's records count when
// its COMMIT is written on the partition, an ABORT discards them, and a
// transaction still open at the end is neither; a refused marker ends
// nothing, and a marker ends only its own pid's transaction on its own
// partition.
func TestTransactions(t *testing.T) {
	r := newRun(Config{})
	r.appendBatch(1, txn(0, 7, 0, 0, 1))    // committed below
	r.appendBatch(1, txn(1, 7, 0, 2))       // p1: aborted below
	r.appendBatch(1, txn(0, 8, 0, 3, 4, 5)) // pid 8: aborted below
	r.appendBatch(2, plain(0, 1, 0))        // a1:0 at once
	r.markerRefused(3, 0, 7, model.MarkerCommit)
	if c := r.s.tally.c; c.Appended != 1 {
		t.Fatalf("before the commit: %d appended, want 1", c.Appended)
	}
	r.marker(4, 0, 7, model.MarkerCommit)
	r.marker(4, 1, 7, model.MarkerAbort)
	r.marker(5, 0, 8, model.MarkerAbort)
	r.appendBatch(6, txn(0, 7, 2, 6)) // open at the end
	r.appendBatch(6, txn(0, 7, 3, 0)) // a second copy of a0:0, still open: no duplicate
	r.appendBatch(6, txn(1, 9, 0, 0)) // p1: another copy, aborted below
	r.marker(7, 1, 9, model.MarkerAbort)
	counts, vs := r.end(8, 0, "drained", 0)
	want := Counts{Appended: 3, Aborted: 5}
	if counts != want {
		t.Errorf("counts %+v, want %+v", counts, want)
	}
	if len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
}

// TestObserveAllocs: an observation no invariant reads allocates nothing,
// and neither does an outcome or append once the maps hold the keys.
func TestObserveAllocs(t *testing.T) {
	s := NewSuite(Config{Names: []string{"p0"}})
	sent := model.Obs{Kind: model.ObsSent, Node: 0, Peer: 1, Text: "x"}
	if n := testing.AllocsPerRun(100, func() { s.Observe(&sent) }); n != 0 {
		t.Errorf("ObsSent: %v allocations per observation", n)
	}
	out := model.Obs{Kind: model.ObsOutcome, Outcome: acked(1, 0, 0, 0, 0)}
	s.Observe(&out)
	if n := testing.AllocsPerRun(100, func() { s.Observe(&out) }); n != 0 {
		t.Errorf("ObsOutcome: %v allocations per observation", n)
	}
}

// TestJSONShape: reports depend on these field names.
func TestJSONShape(t *testing.T) {
	b, err := json.Marshal(Violation{Invariant: InvDup, Detail: "d", AtNs: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"invariant":"INV-DUP","detail":"d","at_ns":5}` {
		t.Errorf("violation JSON %s", got)
	}
	b, err = json.Marshal(Counts{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sent":1,"acked":2,"failed":3,"pending":4,"appended":5,"duplicates":6,"reordered":7,"lost_acked":8,"aborted":9,"txn_committed":10,"txn_aborted":11}`
	if got := string(b); got != want {
		t.Errorf("counts JSON %s, want %s", got, want)
	}
	// deleted is the run report's alone: -json and runs.csv keep their
	// columns.
	b, _ = json.Marshal(Counts{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	if got := string(b); got != want {
		t.Errorf("counts JSON %s, want %s", got, want)
	}
}
