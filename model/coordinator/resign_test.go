package coordinator

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// TestResignAnswersPendingWrite: when the coordinator leaves its host, a
// request whose __transaction_state write is still in flight is answered
// NOT_COORDINATOR at once (TransactionStateManager.appendTransactionToLog:
// NOT_LEADER_OR_FOLLOWER becomes NOT_COORDINATOR), not left unanswered
// as after a crash; a request already answered is not answered again.
// The coordinator reloaded on the new host has the state of the log,
// which lacks the lost write, and takes the client's retry.
func TestResignAnswersPendingWrite(t *testing.T) {
	const w = time.Second
	r := newWriteRun(t, CoordinatorConfig{Leaders: []int32{0}, LogAppendTime: w})
	pid := DefaultNextPID
	r.send(0, &model.InitProducerIDRequest{TransactionalID: "t1", ExpectedPID: model.NoProducerID, ExpectedEpoch: model.NoEpoch})
	add := &model.AddPartitionsToTxnRequest{TransactionalID: "t1", PID: pid, Epoch: 0, Partitions: []int32{0}}
	if got := r.send(2*w, add); len(got) != 0 {
		t.Fatalf("AddPartitionsToTxn answered before its write: %v", got)
	}
	r.until(2*w + w/2)
	n := len(r.replies)
	r.take(r.c.Resign())
	got := r.replies[n:]
	if len(got) != 1 {
		t.Fatalf("Resign answered %d requests, want the one whose write is in flight", len(got))
	}
	if tr := got[0].(*model.TxnResponse); tr.Op != "AddPartitionsToTxn" || tr.Err != model.ErrNotCoordinator {
		t.Fatalf("Resign answered %+v, want AddPartitionsToTxn NOT_COORDINATOR", tr)
	}
	r.c.Crash()
	r.due = nil // the crashed incarnation's wake-ups are dropped, as the world does
	r.take(r.c.Restart(r.now, false))
	if s := r.state(); s != model.TxnEmpty {
		t.Fatalf("reloaded state %v, want Empty: the log does not hold the lost Ongoing", s)
	}
	if got := r.send(3*w, add); len(got) != 0 {
		t.Fatalf("the retry answered before its write: %v", got)
	}
	r.until(4*w + w/2)
	if e := txnErr(t, "the retry", r.replies[len(r.replies)-1:]); e != model.ErrNone {
		t.Fatalf("the retry on the new host: %v, want NONE", e)
	}
	if s := r.state(); s != model.TxnOngoing {
		t.Fatalf("after the retry %v, want Ongoing", s)
	}
	// Nothing in flight: nothing to answer.
	n = len(r.replies)
	r.take(r.c.Resign())
	if len(r.replies) != n {
		t.Fatalf("Resign with no write in flight answered %v", r.replies[n:])
	}
}
