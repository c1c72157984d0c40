package coordinator

import (
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// writeRun drives a coordinator whose __transaction_state writes take
// time (CoordinatorConfig.LogAppendTime) the way the world does: its
// wake-ups fire in time order, and its answers are kept per request.
type writeRun struct {
	*coordRun
	now sim.Time
	// due are the wake-ups asked for and not yet fired, in the order asked.
	due []model.Out
	// replies are the answers that went out, oldest first.
	replies []model.Message
}

func newWriteRun(t *testing.T, cfg CoordinatorConfig) *writeRun {
	return &writeRun{coordRun: &coordRun{t: t, c: NewCoordinator(cfg)}}
}

func (r *writeRun) take(outs []model.Out) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutWake:
			r.due = append(r.due, o)
		case model.OutReply:
			r.replies = append(r.replies, o.Msg)
		}
	}
	r.coordRun.take(outs)
}

// send steps request m at time at (after the wake-ups due by then) and
// returns the answers that went out in that step.
func (r *writeRun) send(at time.Duration, m model.Message) []model.Message {
	r.until(at)
	n := len(r.replies)
	r.take(r.c.Step(r.now, model.Peer{Node: 9}, m))
	return r.replies[n:]
}

// answerMarkers answers every marker request sent so far with NONE, at
// time at.
func (r *writeRun) answerMarkers(at time.Duration) {
	r.until(at)
	for len(r.sent) > 0 {
		q := r.sent[0]
		r.sent = r.sent[1:]
		r.take(r.c.Step(r.now, model.Peer{Node: 0}, &model.WriteTxnMarkersResponse{CorrelationID: q.CorrelationID, TransactionalID: q.TransactionalID, Errs: make([]model.ErrCode, len(q.Markers))}))
	}
}

// until fires, in time order, every wake-up due by at (the ones they ask
// for included), then sets the clock to at.
func (r *writeRun) until(at time.Duration) {
	end := sim.Time(at)
	for {
		i := -1
		for k, o := range r.due {
			if o.At <= end && (i < 0 || o.At < r.due[i].At) {
				i = k
			}
		}
		if i < 0 {
			break
		}
		o := r.due[i]
		r.due = slices.Delete(r.due, i, i+1)
		r.now = max(r.now, o.At)
		r.take(r.c.Wake(r.now, o.Timer))
	}
	r.now = max(r.now, end)
}

// writesDue counts the __transaction_state writes in flight.
func (r *writeRun) writesDue() int {
	n := 0
	for _, o := range r.due {
		if o.Timer&tokWrite != 0 && o.Timer&tokMarker == 0 {
			n++
		}
	}
	return n
}

func txnErr(t *testing.T, what string, replies []model.Message) model.ErrCode {
	t.Helper()
	if len(replies) != 1 {
		t.Fatalf("%s: %d answers, want 1", what, len(replies))
	}
	return replies[0].(*model.TxnResponse).Err
}

// TestRefusedRequestWritesNothing drives the sequence that made the
// coordinator apply a stale CompleteCommit to the next transaction
// (simulate -seed 6251593845190885 -scenario epochx with a
// coordinator.log.append.time of 7.5 minutes panicked with "illegal
// transaction transition Ongoing -> CompleteCommit"): a producer's
// AddPartitionsToTxn retry arrives while its first attempt's Ongoing is
// being written. The retry is refused with CONCURRENT_TRANSACTIONS at
// once and writes nothing, as Kafka's
// TransactionCoordinator.handleAddPartitionsToTransaction answers it
// without appendTransactionToLog, and so is every request while the
// transaction completes.
//
// Before the fix the retry started a second write of the same Ongoing and
// waited for it. Done after the EndTxn's PrepareCommit had been applied,
// that write logged PrepareCommit ahead of its own write and completed the
// transaction with its markers still unanswered; the next transaction
// began, the marker answers started a second CompleteCommit write, and it
// landed on the next transaction's PrepareCommit while the log held its
// Ongoing: the panic.
func TestRefusedRequestWritesNothing(t *testing.T) {
	const w = time.Second // the write time
	r := newWriteRun(t, CoordinatorConfig{Leaders: []int32{0}, LogAppendTime: w})
	pid := DefaultNextPID
	add := &model.AddPartitionsToTxnRequest{TransactionalID: "t1", PID: pid, Epoch: 0, Partitions: []int32{0}}
	end := &model.EndTxnRequest{TransactionalID: "t1", PID: pid, Epoch: 0, Commit: true} // transaction version 0: the epoch stays
	// refused checks that the request at is answered CONCURRENT_TRANSACTIONS
	// at once.
	refused := func(what string, at time.Duration, m model.Message) {
		t.Helper()
		if got := r.send(at, m); len(got) != 1 || got[0].(*model.TxnResponse).Err != model.ErrConcurrentTransactions {
			t.Errorf("%s is answered %v, want CONCURRENT_TRANSACTIONS at once", what, got)
		}
	}
	// waits checks that the request at waits for its write.
	waits := func(what string, at time.Duration, m model.Message) {
		t.Helper()
		if got := r.send(at, m); len(got) != 0 {
			t.Errorf("%s is answered before its write: %v", what, got)
		}
	}
	waits("InitProducerId", 0, &model.InitProducerIDRequest{TransactionalID: "t1", ExpectedPID: model.NoProducerID, ExpectedEpoch: model.NoEpoch})
	waits("AddPartitionsToTxn", 2*w, add)
	refused("its retry during the write", 2*w+w/2, add)
	if n := r.writesDue(); n != 1 {
		t.Errorf("%d writes in flight after the refused retry, want 1", n)
	}
	waits("EndTxn", 3*w+w/4, end)
	r.until(4*w + w/2)
	if len(r.sent) == 0 {
		t.Error("no marker sent once PrepareCommit was written")
	}
	if s := r.state(); s != model.TxnPrepareCommit {
		t.Errorf("before the markers are answered: %v, want PrepareCommit", s)
	}
	refused("the next transaction's AddPartitionsToTxn while the markers are written", 4*w+6*w/10, add)
	r.answerMarkers(4*w + 8*w/10)
	refused("EndTxn while CompleteCommit is written", 5*w+7*w/10, end)
	r.until(6 * w)
	if s := r.state(); s != model.TxnCompleteCommit {
		t.Errorf("once CompleteCommit is written: %v", s)
	}
	// The next transaction.
	waits("the next AddPartitionsToTxn", 7*w, add)
	waits("the next EndTxn", 8*w+w/4, end)
	r.until(9*w + w/2)
	r.answerMarkers(9*w + w/2)
	r.until(12 * w)

	want := []string{"Empty e=0", "Ongoing e=0", "PrepareCommit e=0", "CompleteCommit e=0", "Ongoing e=0", "PrepareCommit e=0", "CompleteCommit e=0"}
	if !equalStrings(r.states, want) {
		t.Errorf("logged states %v, want %v", r.states, want)
	}
	if n := len(r.c.TxnLog()); n != len(want) {
		t.Errorf("%d log records, want %d", n, len(want))
	}
	var ends int
	for _, m := range r.replies {
		if tr, ok := m.(*model.TxnResponse); ok && tr.Op == "EndTxn" && tr.Err == model.ErrNone {
			ends++
		}
	}
	if ends != 2 {
		t.Errorf("%d EndTxn answered NONE, want 2", ends)
	}
}

// TestTimeoutCheckLogsNoPendingTransition: the timed-out transaction check
// runs while a transition is being written; it neither aborts that
// transaction (Kafka's abortTimedOutTransactions skips an id with a
// pending transition) nor writes the pending transition to the log ahead
// of its own write: the log holds each transition once, when its write
// completes.
func TestTimeoutCheckLogsNoPendingTransition(t *testing.T) {
	const w = 20 * time.Second
	r := newWriteRun(t, CoordinatorConfig{Leaders: []int32{0}, LogAppendTime: w, TimeoutCheckInterval: time.Second})
	r.send(0, &model.InitProducerIDRequest{TransactionalID: "t1", ExpectedPID: model.NoProducerID, ExpectedEpoch: model.NoEpoch, TransactionTimeout: 5 * time.Second})
	r.until(w)
	r.send(w+time.Second, &model.AddPartitionsToTxnRequest{TransactionalID: "t1", PID: DefaultNextPID, Epoch: 0, Partitions: []int32{0}})
	// The transaction is Ongoing in memory and times out at 6 s past its
	// start, while its write takes 20 s.
	r.until(2*w - time.Second)
	if want := []string{"Empty e=0"}; !equalStrings(r.states, want) {
		t.Errorf("while Ongoing is being written the log shows %v, want %v", r.states, want)
	}
	if n := len(r.c.TxnLog()); n != 1 {
		t.Errorf("%d log records while Ongoing is being written, want 1", n)
	}
	r.until(2*w + time.Second)
	if want := []string{"Empty e=0", "Ongoing e=0"}; len(r.states) < 2 || !equalStrings(r.states[:2], want) {
		t.Errorf("after the write the log shows %v, want it to start %v", r.states, want)
	}
}

// TestOnePendingTransition: a second write of a transactional id while
// one is in flight is a coordinator bug and panics, as Kafka's
// TransactionMetadata.prepareTransitionTo throws IllegalStateException
// when a pendingState is set; writes of other ids go on.
func TestOnePendingTransition(t *testing.T) {
	c := NewCoordinator(CoordinatorConfig{LogAppendTime: time.Second})
	c.startWrite(0, &pendingWrite{id: "t1"})
	c.startWrite(0, &pendingWrite{id: "t2"})
	defer func() {
		if r := recover(); r == nil {
			t.Error("a second pending write of t1 started")
		}
	}()
	c.startWrite(0, &pendingWrite{id: "t1"})
}
