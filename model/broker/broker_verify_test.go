package broker

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// verifyRun drives a broker whose produce requests wait for their
// verification, as the world does.
type verifyRun struct {
	b       *Broker
	asks    []*model.VerifyPartitionsRequest
	wakes   []model.Out
	replies []*model.ProduceResponse
	closes  []int32
}

func (r *verifyRun) take(outs []model.Out) {
	for _, o := range outs {
		switch o.Kind {
		case model.OutSend:
			r.asks = append(r.asks, o.Msg.(*model.VerifyPartitionsRequest))
		case model.OutWake:
			r.wakes = append(r.wakes, o)
		case model.OutReply:
			r.replies = append(r.replies, o.Msg.(*model.ProduceResponse))
		case model.OutClose:
			r.closes = append(r.closes, o.Dest)
		}
	}
}

func newVerifyRun() *verifyRun {
	return &verifyRun{b: NewBroker(BrokerConfig{ID: 0, Leaders: []int32{0}, Rand: sim.NewRand(1, 1)})}
}

func (r *verifyRun) produce(now sim.Time, corr int64) {
	req := &model.ProduceRequest{CorrelationID: corr, Acks: -1, TransactionalID: "t1", Batches: []model.Batch{{
		Partition: 0, PID: model.ProducerID(1000 + corr), Epoch: 0, FirstSeq: 0, LastSeq: 0, Transactional: true,
		Records: []model.Record{{ID: model.RecordID{N: corr}}}}}}
	r.take(r.b.Step(now, model.Peer{Node: 1, ReqNo: corr, Handle: uint64(corr)}, req))
}

// TestBrokerVerificationTimeout: a verification whose answer never comes
// fails after the verification timeout as Kafka's AddPartitionsToTxnManager
// fails a timed-out request (NETWORK_EXCEPTION, which the produce request
// sees as the retriable NOT_ENOUGH_REPLICAS); the connection to the
// coordinator is closed, and the late answer is ignored.
func TestBrokerVerificationTimeout(t *testing.T) {
	r := newVerifyRun()
	r.produce(0, 1)
	if len(r.asks) != 1 || len(r.replies) != 0 || len(r.wakes) != 1 {
		t.Fatalf("asks %d, replies %d, wakes %d", len(r.asks), len(r.replies), len(r.wakes))
	}
	w := r.wakes[0]
	if w.At != sim.Time(30*time.Second) {
		t.Fatalf("timeout at %v", w.At)
	}
	r.take(r.b.Wake(w.At, w.Timer))
	if len(r.replies) != 1 || r.replies[0].Partitions[0].Err != model.ErrNotEnoughReplicas {
		t.Fatalf("after the timeout: %+v", r.replies)
	}
	if len(r.closes) != 1 || r.closes[0] != model.DestCoordinator {
		t.Fatalf("closes %v", r.closes)
	}
	r.take(r.b.Step(w.At+1, model.Peer{Node: 2}, &model.VerifyPartitionsResponse{CorrelationID: r.asks[0].CorrelationID, Partitions: []int32{0}, Errs: []model.ErrCode{model.ErrNone}}))
	if len(r.replies) != 1 || len(r.b.Partition(0).Log()) != 0 {
		t.Fatal("the late answer appended the batch")
	}
}

// TestBrokerVerificationDisconnect: a broken connection to the coordinator
// fails every verification in flight at once, in order; answers are
// matched by correlation id, not by order.
func TestBrokerVerificationDisconnect(t *testing.T) {
	r := newVerifyRun()
	r.produce(0, 1)
	r.produce(0, 2)
	r.produce(0, 3)
	// The second's answer comes first.
	r.take(r.b.Step(1, model.Peer{Node: 2}, &model.VerifyPartitionsResponse{CorrelationID: r.asks[1].CorrelationID, Partitions: []int32{0}, Errs: []model.ErrCode{model.ErrNone}}))
	if len(r.replies) != 1 || r.replies[0].CorrelationID != 2 || r.replies[0].Partitions[0].Err != model.ErrNone {
		t.Fatalf("answer to the second: %+v", r.replies)
	}
	r.take(r.b.Step(2, model.Peer{Node: 2}, &model.Disconnected{Dest: model.DestCoordinator}))
	if len(r.replies) != 3 || r.replies[1].CorrelationID != 1 || r.replies[2].CorrelationID != 3 {
		t.Fatalf("after the break: %d replies", len(r.replies))
	}
	for _, p := range r.replies[1:] {
		if p.Partitions[0].Err != model.ErrNotEnoughReplicas {
			t.Fatalf("reply %d: %v", p.CorrelationID, p.Partitions[0].Err)
		}
	}
	// The timeouts of the failed verifications find nothing to do.
	n := len(r.replies)
	for _, w := range r.wakes {
		if w.Timer&tokVerify != 0 {
			r.take(r.b.Wake(w.At, w.Timer))
		}
	}
	if len(r.replies) != n || len(r.closes) != 0 {
		t.Fatalf("a stale timeout acted: replies %d, closes %v", len(r.replies), r.closes)
	}
}

// TestBrokerVerificationAbortableByVersion: a verification the coordinator
// answers TRANSACTION_ABORTABLE (the partition is not in the transaction)
// reaches a Produce v11 client as that code, and a lower version as
// INVALID_TXN_STATE (KafkaApis.handleProduceRequest at 3.9.2,
// AddPartitionsToTxnManager's backward compatibility); nothing is
// appended either way.
func TestBrokerVerificationAbortableByVersion(t *testing.T) {
	for _, c := range []struct {
		v11  bool
		want model.ErrCode
	}{{true, model.ErrTransactionAbortable}, {false, model.ErrInvalidTxnState}} {
		r := newVerifyRun()
		req := &model.ProduceRequest{CorrelationID: 1, Acks: -1, TransactionalID: "t1", AbortableError: c.v11, Batches: []model.Batch{{
			Partition: 0, PID: 1000, Epoch: 0, FirstSeq: 0, LastSeq: 0, Transactional: true,
			Records: []model.Record{{ID: model.RecordID{N: 1}}}}}}
		r.take(r.b.Step(0, model.Peer{Node: 1, ReqNo: 1, Handle: 1}, req))
		if len(r.asks) != 1 {
			t.Fatalf("v11 %v: %d verifications asked", c.v11, len(r.asks))
		}
		r.take(r.b.Step(1, model.Peer{Node: 2}, &model.VerifyPartitionsResponse{CorrelationID: r.asks[0].CorrelationID, Partitions: []int32{0}, Errs: []model.ErrCode{model.ErrTransactionAbortable}}))
		if len(r.replies) != 1 || r.replies[0].Partitions[0].Err != c.want {
			t.Fatalf("v11 %v: replies %+v, want %v", c.v11, r.replies, c.want)
		}
		if len(r.b.Partition(0).Log()) != 0 {
			t.Fatalf("v11 %v: the refused batch was appended", c.v11)
		}
	}
}
