package check

import (
	"fmt"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestDupLogOrder: INV-DUP reports extra copies in log order (partition,
// then offset), not in the order they were appended, each at its append
// time; the first copy in log order is the original.
func TestDupLogOrder(t *testing.T) {
	r := newRun(Config{})
	r.appendBatch(1, plain(1, 0, 5))    // p1 offset 0
	r.appendBatch(2, plain(0, 0, 4, 5)) // p0 offsets 0..1
	r.appendBatch(3, plain(0, 0, 4))    // p0 offset 2
	_, vs := r.end(9, 0, "drained", 0)
	wantViolations(t, only(vs, InvDup), []Violation{
		{InvDup, "a0:4 again at p0 offset 2 (p0 pid=none n=1 [a0:4])", 3},
		{InvDup, "a0:5 again at p1 offset 0 (p1 pid=none n=1 [a0:5])", 1},
	})
}

// TestDupCap: the first 8 extra copies, then how many more at the end.
func TestDupCap(t *testing.T) {
	r := newRun(Config{})
	r.appendBatch(1, plain(0, 0, 0))
	for i := range 11 {
		r.appendBatch(sim.Time(2+i), plain(0, 0, 0))
	}
	_, vs := r.end(50, 0, "drained", 0)
	dups := only(vs, InvDup)
	if len(dups) != 9 {
		t.Fatalf("%d INV-DUP violations, want 9: %v", len(dups), dups)
	}
	if dups[7] != (Violation{InvDup, "a0:0 again at p0 offset 8 (p0 pid=none n=1 [a0:0])", 9}) {
		t.Errorf("eighth: %v", dups[7])
	}
	if dups[8] != (Violation{InvDup, "... and 3 more duplicate copies", 50}) {
		t.Errorf("closing line: %v", dups[8])
	}
}

// TestDupCommittedOnly: a transaction's copy is a duplicate once
// committed, never while open or after an abort.
func TestDupCommittedOnly(t *testing.T) {
	r := newRun(Config{})
	r.appendBatch(1, plain(0, 0, 3))
	r.appendBatch(2, txn(0, 7, 0, 3)) // offset 1: committed at 4
	r.appendBatch(2, txn(0, 8, 0, 3)) // offset 2: aborted at 4
	r.marker(4, 0, 8, model.MarkerAbort)
	r.marker(4, 0, 7, model.MarkerCommit)
	r.appendBatch(5, txn(0, 9, 0, 3)) // open at the end
	counts, vs := r.end(6, 0, "drained", 0)
	wantViolations(t, vs, []Violation{{InvDup, "a0:3 again at p0 offset 1 (p0 pid=7 e=0 seq=0..0 txn n=1 [a0:3])", 2}})
	if counts.Duplicates != 1 || counts.Appended != 2 || counts.Aborted != 1 {
		t.Errorf("counts %+v", counts)
	}
}

// TestOrder: a record whose first copy is committed after a later record
// of its application on the same partition is reordered, when it is
// committed (a transaction's at its COMMIT); other applications,
// partitions and extra copies are not.
func TestOrder(t *testing.T) {
	r := newRun(Config{})
	r.appendBatch(1, plain(1, 0, 9))      // a0:9 on p1: another partition
	r.appendBatch(1, txn(0, 7, 0, 1))     // a0:1, committed at 5
	r.appendBatch(2, plain(0, 0, 2))      // a0:2
	r.appendBatch(2, plain(0, 1, 0))      // a1:0: another application
	r.marker(5, 0, 7, model.MarkerCommit) // a0:1 now, after a0:2
	r.appendBatch(6, plain(0, 0, 0, 3))   // a0:0 after a0:2; a0:3 in order
	r.appendBatch(7, plain(0, 0, 1))      // a second copy of a0:1: INV-DUP's
	counts, vs := r.end(8, 0, "drained", 0)
	wantViolations(t, only(vs, InvOrder), []Violation{
		{InvOrder, "a0:1 appended at p0 offset 0 after a0:2 (p0 pid=7 e=0 seq=0..0 txn n=1 [a0:1])", 5},
		{InvOrder, "a0:0 appended at p0 offset 4 after a0:2 (p0 pid=none n=2 [a0:0..a0:3])", 6},
	})
	if counts.Reordered != 2 {
		t.Errorf("reordered %d, want 2", counts.Reordered)
	}
}

// TestOrderCap: the first 8 reordered records, then the total at the end.
func TestOrderCap(t *testing.T) {
	r := newRun(Config{})
	r.appendBatch(1, plain(0, 0, 20))
	for n := range 11 {
		r.appendBatch(sim.Time(2+n), plain(0, 0, int64(n)))
	}
	counts, vs := r.end(30, 0, "drained", 0)
	ord := only(vs, InvOrder)
	if len(ord) != 9 || ord[0] != (Violation{InvOrder, "a0:0 appended at p0 offset 1 after a0:20 (p0 pid=none n=1 [a0:0])", 2}) ||
		ord[8] != (Violation{InvOrder, "... 11 reordered records in all", 30}) {
		t.Errorf("INV-ORDER %v", ord)
	}
	if counts.Reordered != 11 {
		t.Errorf("reordered %d, want 11", counts.Reordered)
	}
}

// TestLoss: an acknowledged record never committed is lost, reported by
// application and message number at its acknowledgement, the first 8
// then how many more; an aborted or still open copy does not count, a
// failed record is not lost.
func TestLoss(t *testing.T) {
	r := newRun(Config{})
	r.appendBatch(1, plain(0, 0, 0))
	r.appendBatch(1, txn(0, 7, 0, 1))
	r.marker(2, 0, 7, model.MarkerAbort)
	r.appendBatch(2, txn(0, 8, 0, 2))
	r.outcome(acked(3, 0, 0, 0, 0))
	r.outcome(acked(3, 0, 1, 0, 1))
	r.outcome(acked(3, 0, 2, 0, 3))
	r.outcome(model.Outcome{ID: model.RecordID{N: 40}, Err: model.ErrDeliveryTimeout, Offset: -1, At: 3})
	for i := range 9 { // a1:10, a0:19, a1:9, a0:18, ...
		n := int64(20 - i)
		r.outcome(acked(sim.Time(10+i), int32(i%2), n, 1, int64(i)))
	}
	counts, vs := r.end(30, 0, "drained", 0)
	want := []Violation{
		{InvLoss, "a0:1 acknowledged at offset 1 of p0 but not in the log", 3},
		{InvLoss, "a0:2 acknowledged at offset 3 of p0 but not in the log", 3},
		{InvLoss, "a0:12 acknowledged at offset 8 of p1 but not in the log", 18},
		{InvLoss, "a0:14 acknowledged at offset 6 of p1 but not in the log", 16},
		{InvLoss, "a0:16 acknowledged at offset 4 of p1 but not in the log", 14},
		{InvLoss, "a0:18 acknowledged at offset 2 of p1 but not in the log", 12},
		{InvLoss, "a0:20 acknowledged at offset 0 of p1 but not in the log", 10},
		{InvLoss, "a1:13 acknowledged at offset 7 of p1 but not in the log", 17},
		{InvLoss, "... and 3 more", 30},
	}
	wantViolations(t, only(vs, InvLoss), want)
	if counts.LostAcked != 11 {
		t.Errorf("lost %d, want 11", counts.LostAcked)
	}
}

// TestLossTransactions: a record sent in a transaction is acknowledged at
// its produce acknowledgement, and only its transaction's reported commit
// promises that it is committed. An acknowledged record of a transaction
// reported aborted or failed, or never reported ended, is not lost; one
// of a transaction reported committed whose records the log aborted is
// (-bug Z05b, KAFKA-6119). The transactions' outcomes are counted.
func TestLossTransactions(t *testing.T) {
	r := newRun(Config{})
	txnAck := func(at sim.Time, n, off int64) {
		o := acked(at, 0, n, 0, off)
		o.Txn = true
		r.outcome(o)
	}
	txnEnd := func(at sim.Time, verb string, err model.ErrCode, ns ...int64) {
		var ids []model.RecordID
		for _, n := range ns {
			ids = append(ids, model.RecordID{N: n})
		}
		r.emit(func(o *model.Obs) {
			o.Kind, o.At, o.Flag, o.Text, o.Err, o.N, o.IDs = model.ObsTxnOutcome, at, verb == "committed", verb, err, int64(len(ids)), ids
		})
	}
	r.appendBatch(1, txn(0, 7, 0, 1, 2))
	txnAck(2, 1, 0)
	txnAck(2, 2, 1)
	r.marker(3, 0, 7, model.MarkerAbort)
	txnEnd(3, "aborted", model.ErrOutOfOrderSequenceNumber, 1, 2) // aborted, and told so
	r.appendBatch(4, txn(0, 7, 2, 3))
	txnAck(5, 3, 3)
	r.marker(6, 0, 7, model.MarkerAbort) // a timeout aborts it ...
	r.appendBatch(7, txn(0, 7, 3, 4))
	txnAck(8, 4, 5)
	r.marker(9, 0, 7, model.MarkerCommit)
	txnEnd(9, "committed", model.ErrNone, 3, 4) // ... but the application is told a0:3 committed
	r.appendBatch(10, txn(0, 7, 4, 5))
	txnAck(11, 5, 7)
	txnEnd(12, "failed", model.ErrProducerFenced, 5) // never committed
	r.appendBatch(13, txn(0, 7, 5, 6))
	txnAck(14, 6, 8) // the run ends with its transaction open
	counts, vs := r.end(20, 0, "drained", 0)
	wantViolations(t, only(vs, InvLoss), []Violation{{InvLoss, "a0:3 acknowledged at offset 3 of p0, its transaction reported committed, but not in the log", 5}})
	if counts.Acked != 6 || counts.LostAcked != 1 || counts.TxnCommitted != 1 || counts.TxnAborted != 2 || counts.Aborted != 3 {
		t.Errorf("counts %+v", counts)
	}
}

// TestAckedOffsets: an acknowledgement of a record in the log must point
// at the record's own copy (INV-DEDUP); an acknowledged record that is
// not in the log at all (a truncation took it, or the broker never wrote
// it) is INV-LOSS's alone, so one anomaly has one name. (On the main
// this started from, such a record fired both.)
func TestAckedOffsets(t *testing.T) {
	a, b := model.RecordID{N: 0}, model.RecordID{N: 1}
	for _, tc := range []struct {
		name        string
		o           model.Outcome
		dedup, loss int
	}{
		{"own copy", model.Outcome{ID: a, Digest: model.Digest(a, 0), Offset: 0}, 0, 0},
		{"collision with a record not in the log", model.Outcome{ID: b, Digest: model.Digest(b, 0), Offset: 0}, 0, 1},
		{"same id, other payload", model.Outcome{ID: a, Digest: model.Digest(a, 1), Offset: 0}, 1, 0},
		{"offset unknown", model.Outcome{ID: b, Offset: -1}, 0, 1},
		{"offset beyond the log, record not in it", model.Outcome{ID: b, Offset: 5}, 0, 1},
		{"a marker's offset", model.Outcome{ID: a, Digest: model.Digest(a, 0), Offset: 1}, 1, 0},
		{"a partition nothing was appended to", model.Outcome{ID: a, Digest: model.Digest(a, 0), Partition: 3, Offset: 0}, 1, 0},
		{"failed", model.Outcome{ID: b, Err: model.ErrDeliveryTimeout, Offset: 0}, 0, 0},
	} {
		r := newRun(Config{})
		r.appendBatch(0, model.Batch{PID: model.NoProducerID, Records: []model.Record{{ID: a, Digest: model.Digest(a, 0)}}})
		r.marker(0, 0, 7, model.MarkerAbort)
		r.outcome(tc.o)
		_, vs := r.end(1, 0, "drained", 0)
		if got := only(vs, InvDedup); len(got) != tc.dedup {
			t.Errorf("%s: %d INV-DEDUP %v, want %d", tc.name, len(got), got, tc.dedup)
		}
		if got := only(vs, InvLoss); len(got) != tc.loss {
			t.Errorf("%s: %d INV-LOSS %v, want %d", tc.name, len(got), got, tc.loss)
		}
	}
}

// TestAckedOffsetsDetails: after the duplicate answers, by application
// and message number at each acknowledgement, the first 8 then how many
// more (at the ninth's acknowledgement).
func TestAckedOffsetsDetails(t *testing.T) {
	r := newRun(Config{})
	r.appendBatch(1, plain(0, 0, 100))
	r.duplicate(2, plain(0, 0, 101), nil)
	r.appendBatch(3, plain(0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)) // in the log, at offsets 1..10
	for i := range 10 {
		r.outcome(acked(sim.Time(20-i), 0, int64(i), 0, 0))
	}
	_, vs := r.end(30, 0, "drained", 0)
	got := only(vs, InvDedup)
	want := []Violation{{InvDedup, "p0 pid=none n=1 [a0:101] answered as a duplicate of nothing in the log", 2}}
	for i := range 8 {
		want = append(want, Violation{InvDedup, fmt.Sprintf("a0:%d acknowledged at p0 offset 0, which holds other data", i), int64(20 - i)})
	}
	want = append(want, Violation{InvDedup, "... and 2 more", 12})
	wantViolations(t, got, want)
}

// TestAckedOffsetsListed: INV-DEDUP on a log entry whose records are
// listed one by one (not a range: out-of-order numbers, a payload other
// than the standard one), and on later runs of a longer log: an
// acknowledgement holds only at its own record with its own digest.
func TestAckedOffsetsListed(t *testing.T) {
	a, b, c := model.RecordID{N: 0}, model.RecordID{N: 5}, model.RecordID{N: 2}
	odd := model.Digest(b, 1)
	for _, tc := range []struct {
		name string
		o    model.Outcome
		want int
	}{
		{"own copy, first of a listed entry", model.Outcome{ID: a, Digest: model.Digest(a, 0), Offset: 0}, 0},
		{"own copy, other payload in the log", model.Outcome{ID: b, Digest: odd, Offset: 1}, 0},
		{"standard payload where the log has another", model.Outcome{ID: b, Digest: model.Digest(b, 0), Offset: 1}, 1},
		{"another record of the entry", model.Outcome{ID: c, Digest: model.Digest(c, 0), Offset: 1}, 1},
		{"own copy, third of the entry", model.Outcome{ID: c, Digest: model.Digest(c, 0), Offset: 2}, 0},
		{"a range entry after it", model.Outcome{ID: model.RecordID{N: 10}, Digest: model.Digest(model.RecordID{N: 10}, 0), Offset: 4}, 0},
		{"a range entry, off by one", model.Outcome{ID: model.RecordID{N: 9}, Digest: model.Digest(model.RecordID{N: 9}, 0), Offset: 4}, 1},
		{"a range entry, other payload acknowledged", model.Outcome{ID: model.RecordID{N: 10}, Digest: model.Digest(model.RecordID{N: 10}, 2), Offset: 4}, 1},
	} {
		r := newRun(Config{})
		r.appendBatch(0, model.Batch{PID: model.NoProducerID, Records: []model.Record{
			{ID: a, Digest: model.Digest(a, 0)}, {ID: b, Digest: odd}, {ID: c, Digest: model.Digest(c, 0)}}})
		r.appendBatch(0, plain(0, 0, 9))
		r.appendBatch(0, plain(0, 0, 10))
		r.outcome(tc.o)
		_, vs := r.end(1, 0, "drained", 0)
		if got := only(vs, InvDedup); len(got) != tc.want {
			t.Errorf("%s: %d violations %v, want %d", tc.name, len(got), got, tc.want)
		}
	}
}
