package check

import (
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestInvariantsOrder: the documented invariants keep their report order
// (a new invariant may be added anywhere: it is one file and one registry
// line), names are unique, and each registry line's name is its
// invariant's.
func TestInvariantsOrder(t *testing.T) {
	want := []string{"INV-DUP", "INV-LOSS", "INV-ORDER", "INV-SEQ", "INV-DEDUP", "INV-FENCE", "INV-STATE", "INV-EPOCH", "LIVE-PROD"}
	got := Invariants()
	i := 0
	for _, n := range got {
		if i < len(want) && n == want[i] {
			i++
		}
	}
	if i != len(want) {
		t.Fatalf("Invariants() = %v: want %v among them, in this order", got, want)
	}
	seen := map[string]bool{}
	for _, n := range got {
		if seen[n] {
			t.Fatalf("invariant %s registered twice", n)
		}
		seen[n] = true
	}
	s := NewSuite(Config{})
	if len(s.invs) != len(got) {
		t.Fatalf("suite has %d invariants, want %d", len(s.invs), len(got))
	}
	for i, inv := range s.invs {
		if inv.Name() != got[i] {
			t.Errorf("invariant %d is %s, registered as %s", i, inv.Name(), got[i])
		}
	}
}

// TestSuiteReportOrder: a run that breaks every invariant, in the reverse
// of report order, is reported in registry order.
func TestSuiteReportOrder(t *testing.T) {
	r := newRun(Config{MaxEpoch: 5, Names: []string{"p0"}})
	r.start(0, 0, 0)
	r.fatal(1, 0, model.ErrProducerFenced)      // LIVE-PROD
	r.epoch(2, 9, 6)                            // INV-EPOCH
	r.stateCheck(3, 0, "differs")               // INV-STATE
	r.appendBatch(4, batch(9, 4, 0, 1))         // INV-FENCE
	orig := r.appendBatch(5, batch(9, 6, 0, 1)) // a0:0 again: INV-DUP
	r.duplicate(6, plain(0, 0, 7), &orig)       // INV-DEDUP
	r.appendBatch(7, batch(9, 6, 5, 1))         // INV-SEQ, and a0:5
	r.appendBatch(8, plain(0, 0, 3))            // INV-ORDER
	r.outcome(acked(9, 0, 4, 0, 9))             // INV-LOSS alone: a0:4 is not in the log
	r.outcome(acked(9, 0, 3, 0, 0))             // INV-DEDUP: a0:3 is in the log, not at offset 0
	_, vs := r.end(10, 0, "drained", 0)
	want := "INV-DUP,INV-LOSS,INV-ORDER,INV-SEQ,INV-DEDUP,INV-DEDUP,INV-FENCE,INV-STATE,INV-EPOCH,INV-EPOCH,INV-EPOCH,LIVE-PROD"
	if got := names(vs); got != want {
		t.Fatalf("violations %s, want %s\n%v", got, want, vs)
	}
}

// TestFinishNoViolations: a clean run reports an empty, non-nil list (a
// report's "violations": []).
func TestFinishNoViolations(t *testing.T) {
	r := newRun(Config{})
	r.send(0, 0)
	r.appendBatch(1, plain(0, 0, 0))
	r.outcome(acked(2, 0, 0, 0, 0))
	counts, vs := r.end(3, 0, "drained", 0)
	if vs == nil || len(vs) != 0 {
		t.Fatalf("violations %#v, want empty and non-nil", vs)
	}
	if counts != (Counts{Sent: 1, Acked: 1, Appended: 1}) {
		t.Errorf("counts %+v", counts)
	}
}

// TestSuiteJudgedTwice: a scripted run judges the stream at several run
// ends; each Finish sees everything observed up to its run end.
func TestSuiteJudgedTwice(t *testing.T) {
	r := newRun(Config{})
	r.send(0, 0)
	r.outcome(model.Outcome{ID: model.RecordID{App: 0, N: 0}, Partition: 0, Offset: 0, At: 1, Digest: model.Digest(model.RecordID{App: 0, N: 0}, 0)})
	c, v := r.end(2, 0, "script", 2)
	if c.LostAcked != 1 || len(v) != 1 || v[0].Invariant != InvLoss { // not in the log: INV-LOSS alone
		t.Fatalf("first judgement: %+v %v", c, v)
	}
	r.appendBatch(3, plain(0, 0, 0))
	c, v = r.end(4, 0, "script", 4)
	if c.LostAcked != 0 || c.Appended != 1 || len(v) != 0 {
		t.Fatalf("second judgement: %+v %v", c, v)
	}
}
