package coordinator

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

func strp(s string) *string { return &s }

// TestCoordinatorPendingMarkers: while markers are outstanding (Prepare*),
// InitProducerId, AddPartitionsToTxn and a same-result EndTxn get
// CONCURRENT_TRANSACTIONS, the opposite result INVALID_TXN_STATE.
func TestCoordinatorPendingMarkers(t *testing.T) {
	c := NewCoordinator(CoordinatorConfig{CoordinatorEpoch: 4})
	r := c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp("t"), ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch})
	if r.Err != model.ErrNone || r.ProducerID != 1000 || r.Epoch != 0 {
		t.Fatalf("init: %+v", r)
	}
	if e := c.AddPartitionsToTxn(0, "t", 1000, 0, []int32{3, 1, 3}); e != model.ErrNone {
		t.Fatal(e)
	}
	if e := c.VerifyPartition("t", 1000, 0, 3); e != model.ErrNone {
		t.Fatalf("verify in txn: %v", e)
	}
	if e := c.VerifyPartition("t", 1000, 0, 2); e != model.ErrTransactionAbortable {
		t.Fatalf("verify not in txn: %v", e)
	}
	if e := c.VerifyPartition("t", 1000, 1, 3); e != model.ErrProducerFenced {
		t.Fatalf("verify other epoch: %v", e)
	}
	end := c.EndTxn(0, EndTxnCall{TransactionalID: "t", ProducerID: 1000, ProducerEpoch: 0, Commit: true})
	if end.Err != model.ErrNone || len(end.Markers) != 2 || end.Markers[0].Partition != 1 || end.Markers[1].Partition != 3 ||
		end.Markers[0].CoordinatorEpoch != 4 || end.Markers[0].Marker != model.MarkerCommit {
		t.Fatalf("end: %+v", end)
	}
	if m, _ := c.Txn("t"); m.State != model.TxnPrepareCommit {
		t.Fatalf("state %v", m.State)
	}
	if r := c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp("t"), ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch}); r.Err != model.ErrConcurrentTransactions {
		t.Fatalf("init while completing: %v", r.Err)
	}
	if e := c.AddPartitionsToTxn(0, "t", 1000, 0, []int32{1}); e != model.ErrConcurrentTransactions {
		t.Fatalf("add while completing: %v", e)
	}
	if e := c.VerifyPartition("t", 1000, 0, 1); e != model.ErrConcurrentTransactions {
		t.Fatalf("verify while completing: %v", e)
	}
	if r := c.EndTxn(0, EndTxnCall{TransactionalID: "t", ProducerID: 1000, ProducerEpoch: 0, Commit: true}); r.Err != model.ErrConcurrentTransactions {
		t.Fatalf("same end while completing: %v", r.Err)
	}
	if r := c.EndTxn(0, EndTxnCall{TransactionalID: "t", ProducerID: 1000, ProducerEpoch: 0}); r.Err != model.ErrInvalidTxnState {
		t.Fatalf("opposite end while completing: %v", r.Err)
	}
	if !c.MarkersWritten(0, "t") || c.MarkersWritten(0, "t") {
		t.Fatal("MarkersWritten")
	}
	if m, _ := c.Txn("t"); m.State != model.TxnCompleteCommit || len(m.Partitions) != 0 {
		t.Fatalf("after markers: %+v", m)
	}
}

func TestCoordinatorTimeouts(t *testing.T) {
	c := NewCoordinator(CoordinatorConfig{})
	at := func(d time.Duration) sim.Time { return sim.Time(0).Add(d) }
	if r := c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp("x"), TransactionTimeout: 16 * time.Minute, ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch}); r.Err != model.ErrInvalidTransactionTimeout {
		t.Fatalf("too long a timeout: %v", r.Err)
	}
	for _, id := range []string{"b", "a"} {
		r := c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp(id), TransactionTimeout: 10 * time.Second, ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch})
		if r.Err != model.ErrNone {
			t.Fatal(r.Err)
		}
		if e := c.AddPartitionsToTxn(at(time.Second), id, r.ProducerID, r.Epoch, []int32{0}); e != model.ErrNone {
			t.Fatal(e)
		}
	}
	// Strictly after the deadline (TransactionStateManager.timedOutTransactions:
	// start + timeout < now): not at 11s itself.
	if mk := c.AbortTimedOutTransactions(at(11 * time.Second)); len(mk) != 0 {
		t.Fatalf("aborted early: %+v", mk)
	}
	mk := c.AbortTimedOutTransactions(at(11*time.Second + 1))
	if len(mk) != 2 || mk[0].TransactionalID != "a" || mk[1].TransactionalID != "b" || mk[0].Epoch != 1 || mk[0].Marker != model.MarkerAbort {
		t.Fatalf("timed-out aborts: %+v", mk)
	}
	// The producer's own EndTxn at the old epoch is fenced
	// (TransactionCoordinator.endTransaction's epoch check).
	m, _ := c.Txn("a")
	if r := c.EndTxn(0, EndTxnCall{TransactionalID: "a", ProducerID: m.ProducerID, ProducerEpoch: 0}); r.Err != model.ErrProducerFenced {
		t.Fatalf("end at old epoch: %v", r.Err)
	}
	// KIP-360 with the producer's own (pre-fence) pair: CONCURRENT_TRANSACTIONS
	// until the markers are written, then PRODUCER_FENCED, because the fence
	// reset lastProducerEpoch (so KIP-588's recovery through InitProducerId
	// does not work under the classic protocol).
	if r := c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp("a"), ProducerID: m.ProducerID, ProducerEpoch: 0}); r.Err != model.ErrConcurrentTransactions {
		t.Fatalf("init before markers written: %v", r.Err)
	}
	c.MarkersWritten(0, "a")
	if r := c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp("a"), ProducerID: m.ProducerID, ProducerEpoch: 0}); r.Err != model.ErrProducerFenced {
		// The fence reset lastProducerEpoch, so the old pair is stale.
		t.Fatalf("init with pre-fence pair: %+v", r)
	}
	if r := c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp("a"), ProducerID: m.ProducerID, ProducerEpoch: 1}); r.Err != model.ErrNone || r.Epoch != 2 {
		t.Fatalf("init with fenced pair: %+v", r)
	}
}

// TestZombieEndToEnd wires coordinator and partition: a fence's markers,
// delivered, make the old instance's produce fail.
func TestZombieEndToEnd(t *testing.T) {
	c := NewCoordinator(CoordinatorConfig{})
	p := storage.NewPartition(0, storage.PartitionConfig{})
	a := c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp("t"), ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch})
	c.AddPartitionsToTxn(0, "t", a.ProducerID, a.Epoch, []int32{0})
	ok := p.AppendWith(0, mk(model.SeqSpace{}, a.ProducerID, a.Epoch, 0, 0, true), storage.AppendOptions{Verification: c.VerifyPartition("t", a.ProducerID, a.Epoch, 0)})
	if ok.Err != model.ErrNone {
		t.Fatal(ok.Err)
	}
	b := c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp("t"), ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch})
	if b.Err != model.ErrConcurrentTransactions || len(b.Markers) != 1 {
		t.Fatalf("fence: %+v", b)
	}
	for _, m := range b.Markers {
		if r := p.AppendMarker(0, m.PID, m.Epoch, m.CoordinatorEpoch, m.Marker); r.Err != model.ErrNone {
			t.Fatal(r.Err)
		}
	}
	c.MarkersWritten(0, "t")
	if r := p.Append(0, mk(model.SeqSpace{}, a.ProducerID, a.Epoch, 1, 1, true)); r.Err != model.ErrInvalidProducerEpoch {
		t.Fatalf("zombie produce: %v", r.Err)
	}
	b = c.InitProducerID(0, InitProducerIDCall{TransactionalID: strp("t"), ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch})
	if b.Err != model.ErrNone || b.Epoch != a.Epoch+2 {
		t.Fatalf("new instance: %+v", b)
	}
	// Verification reports the zombie's stale epoch as INVALID_PRODUCER_EPOCH
	// on a partition that never saw the fence.
	q := storage.NewPartition(1, storage.PartitionConfig{})
	if r := q.AppendWith(0, mk(model.SeqSpace{}, a.ProducerID, a.Epoch, 0, 0, true), storage.AppendOptions{Verification: c.VerifyPartition("t", a.ProducerID, a.Epoch, 1)}); r.Err != model.ErrInvalidProducerEpoch {
		t.Fatalf("zombie on fresh partition: %v", r.Err)
	}
}
