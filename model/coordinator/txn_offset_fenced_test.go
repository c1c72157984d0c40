package coordinator

import (
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestTxnOffsetCommitFencedEpoch: a TxnOffsetCommit at an epoch below
// one the group coordinator has seen for its producer id, and a
// TxnOffsetCommit v5 whose implicit add the transaction coordinator
// answers PRODUCER_FENCED, are both answered INVALID_PRODUCER_EPOCH, as
// Kafka's broker answers them (the append's producer-state check; the
// AddPartitionsToTxnManager's mapping of PRODUCER_FENCED), and store no
// pending offset.
func TestTxnOffsetCommitFencedEpoch(t *testing.T) {
	answer := func(outs []model.Out) (model.ErrCode, bool) {
		for _, o := range outs {
			if r, ok := o.Msg.(*model.TxnResponse); ok && r.Op == "TxnOffsetCommit" {
				return r.Err, true
			}
		}
		return 0, false
	}
	peer := model.Peer{Node: 0}

	g := NewGroupCoordinator()
	if err, ok := answer(g.Step(0, peer, &model.TxnOffsetCommitRequest{CorrelationID: 1, TransactionalID: "t", GroupID: "app-0", PID: 42, Epoch: 3, Offset: 10})); !ok || err != model.ErrNone {
		t.Fatalf("first commit at epoch 3: %v %v, want NONE", err, ok)
	}
	if err, ok := answer(g.Step(0, peer, &model.TxnOffsetCommitRequest{CorrelationID: 2, TransactionalID: "t", GroupID: "app-0", PID: 42, Epoch: 2, Offset: 20})); !ok || err != model.ErrInvalidProducerEpoch {
		t.Fatalf("commit at the older epoch 2: %v %v, want INVALID_PRODUCER_EPOCH", err, ok)
	}

	g = NewGroupCoordinator()
	outs := g.Step(0, peer, &model.TxnOffsetCommitRequest{CorrelationID: 1, TransactionalID: "t", GroupID: "app-0", PID: 42, Epoch: 4, Offset: 40, TransactionV2: true})
	var ask *model.VerifyPartitionsRequest
	for _, o := range outs {
		if r, ok := o.Msg.(*model.VerifyPartitionsRequest); ok {
			ask = r
		}
	}
	if ask == nil || !ask.Add {
		t.Fatalf("a TxnOffsetCommit v5 sent no implicit add: %v", outs)
	}
	err, ok := answer(g.Step(0, model.Peer{Node: 1}, &model.VerifyPartitionsResponse{CorrelationID: ask.CorrelationID, Partitions: ask.Partitions, Errs: []model.ErrCode{model.ErrProducerFenced}}))
	if !ok || err != model.ErrInvalidProducerEpoch {
		t.Fatalf("v5 commit whose add was fenced: %v %v, want INVALID_PRODUCER_EPOCH", err, ok)
	}
	if len(g.pending) != 0 {
		t.Fatalf("a fenced commit left a pending offset: %v", g.pending)
	}
}
