package coordinator

import (
	"strconv"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// coordRun drives a coordinator node the way the world does, with
// brokers that answer WriteTxnMarkers through answer.
type coordRun struct {
	t      *testing.T
	c      *Coordinator
	states []string // ObsTxnState lines, "Ongoing e=0 [0]"
	sent   []*model.WriteTxnMarkersRequest
	wakes  []model.Out
	reply  model.Message
	closes []int32 // OutClose destinations
}

func (r *coordRun) take(outs []model.Out) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutObserve:
			if o.Obs.Kind == model.ObsTxnState {
				s := model.TxnState(o.Obs.N).String() + " e=" + strconv.Itoa(int(o.Obs.Epoch))
				if o.Obs.Flag {
					s += " loaded"
				}
				r.states = append(r.states, s)
			}
		case model.OutSend:
			r.sent = append(r.sent, o.Msg.(*model.WriteTxnMarkersRequest))
		case model.OutWake:
			r.wakes = append(r.wakes, o)
		case model.OutReply:
			r.reply = o.Msg
		case model.OutClose:
			r.closes = append(r.closes, o.Dest)
		}
	}
}

func (r *coordRun) step(now sim.Time, m model.Message) model.Message {
	r.reply = nil
	r.take(r.c.Step(now, model.Peer{Node: 9}, m))
	return r.reply
}

// answer answers the oldest unanswered marker request with errs (nil: all
// NONE).
func (r *coordRun) answer(now sim.Time, errs ...model.ErrCode) {
	q := r.sent[0]
	r.sent = r.sent[1:]
	if errs == nil {
		errs = make([]model.ErrCode, len(q.Markers))
	}
	r.step(now, &model.WriteTxnMarkersResponse{CorrelationID: q.CorrelationID, TransactionalID: q.TransactionalID, Errs: errs})
}

func newCoordRun(t *testing.T) *coordRun {
	r := &coordRun{t: t, c: NewCoordinator(CoordinatorConfig{Leaders: []int32{0, 1}})}
	res := r.step(0, &model.InitProducerIDRequest{TransactionalID: "t1", ExpectedPID: model.NoProducerID, ExpectedEpoch: model.NoEpoch}).(*model.InitProducerIDResponse)
	if res.Err != model.ErrNone {
		t.Fatal(res.Err)
	}
	if e := r.step(1, &model.AddPartitionsToTxnRequest{TransactionalID: "t1", PID: res.PID, Epoch: 0, Partitions: []int32{0, 1}}).(*model.TxnResponse).Err; e != model.ErrNone {
		t.Fatal(e)
	}
	return r
}

func (r *coordRun) state() model.TxnState {
	m, ok := r.c.Txn("t1")
	if !ok {
		r.t.Fatal("t1 unknown")
	}
	return m.State
}

// TestCoordinatorLogsEveryTransition: each completed transition is one
// ObsTxnState and one __transaction_state record; EndTxn is answered once
// PrepareCommit is logged, and CompleteCommit follows the last marker.
func TestCoordinatorLogsEveryTransition(t *testing.T) {
	r := newCoordRun(t)
	end := r.step(2, &model.EndTxnRequest{TransactionalID: "t1", PID: DefaultNextPID, Epoch: 0, Commit: true}).(*model.TxnResponse)
	if end.Err != model.ErrNone || r.state() != model.TxnPrepareCommit || len(r.sent) != 2 {
		t.Fatalf("EndTxn: %v, state %v, %d marker requests", end.Err, r.state(), len(r.sent))
	}
	// Markers pending: the next transaction waits.
	if e := r.step(3, &model.AddPartitionsToTxnRequest{TransactionalID: "t1", PID: DefaultNextPID, Epoch: 0, Partitions: []int32{0}}).(*model.TxnResponse).Err; e != model.ErrConcurrentTransactions {
		t.Fatalf("AddPartitionsToTxn while markers pending: %v", e)
	}
	r.answer(4)
	if r.state() != model.TxnPrepareCommit {
		t.Fatal("completed before every marker was written")
	}
	r.answer(5)
	want := []string{"Empty e=0", "Ongoing e=0", "PrepareCommit e=0", "CompleteCommit e=0"}
	if r.state() != model.TxnCompleteCommit || !equalStrings(r.states, want) {
		t.Fatalf("states %v, want %v", r.states, want)
	}
	if n := len(r.c.TxnLog()); n != len(want) {
		t.Fatalf("%d log records, want %d", n, len(want))
	}
}

// TestCoordinatorMarkerRetries: a retriable marker error sends the marker
// again after the backoff; an unanswered request times out after the
// request timeout, which closes the connection to its leader and sends it
// again after the reconnect backoff; INVALID_PRODUCER_EPOCH gives the
// transaction up in PrepareCommit
// (TransactionMarkerRequestCompletionHandler.onComplete).
func TestCoordinatorMarkerRetries(t *testing.T) {
	r := newCoordRun(t)
	r.step(2, &model.EndTxnRequest{TransactionalID: "t1", PID: DefaultNextPID, Epoch: 0, Commit: true})
	r.answer(3, model.ErrNotLeaderOrFollower)
	// The retry timer is the last wake asked for.
	w := r.wakes[len(r.wakes)-1]
	if w.At != sim.Time(3).Add(50*time.Millisecond) {
		t.Fatalf("retry at %v", w.At)
	}
	r.take(r.c.Wake(w.At, w.Timer))
	if len(r.sent) != 2 || r.sent[1].Markers[0].Partition != 0 {
		t.Fatalf("after the retry: %d requests", len(r.sent))
	}
	// The request to partition 1's leader is never answered: it times out.
	var timeout model.Out
	for _, o := range r.wakes {
		if o.Timer == tokMarker|uint64(r.sent[0].CorrelationID) {
			timeout = o
		}
	}
	if timeout.At != sim.Time(2).Add(30*time.Second) {
		t.Fatalf("timeout wake %+v", timeout)
	}
	r.sent = r.sent[1:] // the unanswered one
	r.take(r.c.Wake(timeout.At, timeout.Timer))
	if len(r.closes) != 1 || r.closes[0] != 1 {
		t.Fatalf("the timeout closed %v, want the connection to leader 1", r.closes)
	}
	w = r.wakes[len(r.wakes)-1]
	if len(r.sent) != 1 || w.At != timeout.At.Add(50*time.Millisecond) {
		t.Fatalf("after the timeout: %d requests, retry at %v", len(r.sent), w.At)
	}
	r.take(r.c.Wake(w.At, w.Timer))
	if len(r.sent) != 2 {
		t.Fatalf("the timed-out request was not sent again: %d", len(r.sent))
	}
	r.answer(w.At)
	r.answer(w.At, model.ErrInvalidProducerEpoch)
	if r.state() != model.TxnPrepareCommit || r.c.MarkersPending("t1") {
		t.Fatalf("after a give-up: state %v, pending %v", r.state(), r.c.MarkersPending("t1"))
	}
}

// TestCoordinatorMarkerDisconnect: a broken connection to a leader fails
// its requests in flight at once (TransactionMarkerRequestCompletionHandler
// with wasDisconnected); their markers go again after the reconnect
// backoff, which doubles with each break in a row (50 ms, 100 ms, ... up
// to 1 s) and starts over after an answer.
func TestCoordinatorMarkerDisconnect(t *testing.T) {
	r := newCoordRun(t)
	r.step(2, &model.EndTxnRequest{TransactionalID: "t1", PID: DefaultNextPID, Epoch: 0, Commit: true})
	if len(r.sent) != 2 {
		t.Fatalf("%d marker requests", len(r.sent))
	}
	r.answer(3) // leader 0's
	now := sim.Time(4)
	for i, want := range []time.Duration{50, 100, 200, 400, 800, 1000, 1000} {
		r.sent = nil
		r.take(r.c.Step(now, model.Peer{Node: 9}, &model.Disconnected{Dest: 1}))
		w := r.wakes[len(r.wakes)-1]
		if len(r.sent) != 0 || w.At != now.Add(want*time.Millisecond) {
			t.Fatalf("break %d: %d sent, retry at %v, want %v", i+1, len(r.sent), w.At-now, want*time.Millisecond)
		}
		r.take(r.c.Wake(w.At, w.Timer))
		if len(r.sent) != 1 || r.sent[0].Markers[0].Partition != 1 {
			t.Fatalf("break %d: not sent again: %d", i+1, len(r.sent))
		}
		now = w.At
	}
	// A break of another leader's connection changes nothing.
	r.take(r.c.Step(now, model.Peer{Node: 9}, &model.Disconnected{Dest: 0}))
	if !r.c.MarkersPending("t1") || len(r.sent) != 1 {
		t.Fatal("a break elsewhere touched the request")
	}
	r.answer(now)
	if r.state() != model.TxnCompleteCommit {
		t.Fatalf("state %v after the answer", r.state())
	}
	if len(r.c.node.fails) != 0 {
		t.Fatalf("breaks still counted after an answer: %v", r.c.node.fails)
	}
}

// TestCoordinatorReloadsOnRestart: a crash loses the memory; the restart
// reloads __transaction_state under coordinator epoch + 1 and writes the
// markers of a PrepareCommit again with it.
func TestCoordinatorReloadsOnRestart(t *testing.T) {
	r := newCoordRun(t)
	r.step(2, &model.EndTxnRequest{TransactionalID: "t1", PID: DefaultNextPID, Epoch: 0, Commit: true})
	r.sent = nil
	r.c.Crash()
	if _, ok := r.c.Txn("t1"); ok {
		t.Fatal("metadata survived the crash")
	}
	r.take(r.c.Restart(10, false))
	if r.state() != model.TxnPrepareCommit || len(r.sent) != 2 {
		t.Fatalf("after reload: %v, %d marker requests", r.state(), len(r.sent))
	}
	if e := r.sent[0].Markers[0].CoordinatorEpoch; e != 1 {
		t.Fatalf("markers carry coordinator epoch %d, want 1", e)
	}
	r.answer(11)
	r.answer(11)
	if r.state() != model.TxnCompleteCommit {
		t.Fatalf("state %v", r.state())
	}
	if got := r.states[len(r.states)-2]; got != "PrepareCommit e=0 loaded" {
		t.Fatalf("reload line %q", got)
	}
}

// TestCoordinatorReloadForgetsLastEpoch: lastProducerEpoch is not on the
// log (TransactionLog.readTxnRecordValue reads it back as -1), so a
// retried bump after a reload is PRODUCER_FENCED, while
// before the crash it is answered with the current epoch.
func TestCoordinatorReloadForgetsLastEpoch(t *testing.T) {
	for _, crash := range []bool{false, true} {
		r := &coordRun{t: t, c: NewCoordinator(CoordinatorConfig{})}
		init := func(pid model.ProducerID, e int16) *model.InitProducerIDResponse {
			return r.step(0, &model.InitProducerIDRequest{TransactionalID: "t1", ExpectedPID: pid, ExpectedEpoch: e}).(*model.InitProducerIDResponse)
		}
		first := init(model.NoProducerID, model.NoEpoch)
		init(first.PID, first.Epoch) // bumps to 1; lastProducerEpoch 0
		if crash {
			r.c.Crash()
			r.take(r.c.Restart(1, false))
		}
		got := init(first.PID, first.Epoch) // the retry of that bump
		want := model.ErrNone
		if crash {
			want = model.ErrProducerFenced
		}
		if got.Err != want {
			t.Fatalf("crash=%v: retried bump %v, want %v", crash, got.Err, want)
		}
	}
}

// TestCoordinatorExpiresIDs: an id idle for transactional.id.expiration.ms
// in CompleteCommit is logged Dead and forgotten; its pid is then unknown.
func TestCoordinatorExpiresIDs(t *testing.T) {
	r := &coordRun{t: t, c: NewCoordinator(CoordinatorConfig{TransactionalIDExpiration: time.Hour, ExpirationCheckInterval: time.Minute})}
	r.step(0, &model.InitProducerIDRequest{TransactionalID: "t1", ExpectedPID: model.NoProducerID, ExpectedEpoch: model.NoEpoch})
	var w model.Out
	for _, o := range r.wakes {
		if o.Timer&tokExpiration != 0 {
			w = o
		}
	}
	if w.At != sim.Time(time.Hour) {
		t.Fatalf("expiration check at %v", w.At)
	}
	r.take(r.c.Wake(w.At, w.Timer))
	if _, ok := r.c.Txn("t1"); ok || r.states[len(r.states)-1] != "Dead e=0" {
		t.Fatalf("not expired: %v", r.states)
	}
	if e := r.c.VerifyPartition("t1", DefaultNextPID, 0, 0); e != model.ErrInvalidProducerIDMapping {
		t.Fatalf("verify after expiry: %v", e)
	}
	log := r.c.TxnLog()
	if log[len(log)-1].State != model.TxnDead {
		t.Fatal("no tombstone")
	}
}

// TestTxnStateTransitions checks the legal-transition table against
// Kafka's (TransactionState.validPreviousStates in TransactionMetadata.scala).
func TestTxnStateTransitions(t *testing.T) {
	for _, c := range []struct {
		prev, next model.TxnState
		ok         bool
	}{
		{model.TxnEmpty, model.TxnOngoing, true}, {model.TxnOngoing, model.TxnPrepareCommit, true}, {model.TxnPrepareEpochFence, model.TxnPrepareAbort, true},
		{model.TxnPrepareCommit, model.TxnCompleteCommit, true}, {model.TxnCompleteAbort, model.TxnDead, true},
		{model.TxnEmpty, model.TxnPrepareCommit, false}, {model.TxnPrepareCommit, model.TxnCompleteAbort, false}, {model.TxnOngoing, model.TxnDead, false},
		{model.TxnPrepareEpochFence, model.TxnCompleteAbort, false},
	} {
		if got := c.next.CanFollow(c.prev); got != c.ok {
			t.Errorf("%v -> %v: %v, want %v", c.prev, c.next, got, c.ok)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCoordinatorRetryUnderDrift: the marker retry wake-up fires when the
// coordinator's own clock reaches the retry time; with a drifting clock
// that is before (or after) the true time, and the markers still go out
// (before the fix a wake-up a little early in true time retried nothing
// and armed nothing: the transaction hung in PrepareCommit).
func TestCoordinatorRetryUnderDrift(t *testing.T) {
	r := newCoordRun(t)
	r.step(2, &model.EndTxnRequest{TransactionalID: "t1", PID: DefaultNextPID, Epoch: 0, Commit: true})
	r.answer(3, model.ErrNotLeaderOrFollower)
	w := r.wakes[len(r.wakes)-1]
	before := len(r.sent)
	r.take(r.c.Wake(w.At-sim.Time(3*time.Millisecond), w.Timer)) // a fast clock
	if len(r.sent) != before+1 {
		t.Fatalf("the retry wake-up sent %d requests, want 1", len(r.sent)-before)
	}
}
