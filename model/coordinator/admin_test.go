package coordinator

import (
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestListAndDescribeTransactions: ListTransactions lists the ids not
// Dead, filtered by producer id; DescribeTransactions gives an id's
// producer, epoch, state and partitions, TRANSACTIONAL_ID_NOT_FOUND for
// an unknown or Dead id and INVALID_REQUEST for an empty one
// (TransactionCoordinator.handleListTransactions,
// handleDescribeTransactions).
func TestListAndDescribeTransactions(t *testing.T) {
	c := NewCoordinator(CoordinatorConfig{Leaders: []int32{0, 1}})
	c.SetTxn(TxnMetadata{TransactionalID: "t1", ProducerID: 7, ProducerEpoch: 2, State: model.TxnOngoing, Partitions: []int32{1, 0}})
	c.SetTxn(TxnMetadata{TransactionalID: "t2", ProducerID: 8, ProducerEpoch: 0, State: model.TxnCompleteAbort})
	c.SetTxn(TxnMetadata{TransactionalID: "t3", ProducerID: 9, State: model.TxnDead})
	reply := func(m model.Message) model.Message {
		for _, o := range c.Step(0, model.Peer{Node: 5, Handle: 1}, m) {
			if o.Kind == model.OutReply {
				return o.Msg
			}
		}
		t.Fatalf("no answer to %s", m.AppendDescription(nil))
		return nil
	}
	l := reply(&model.ListTransactionsRequest{CorrelationID: 1}).(*model.ListTransactionsResponse)
	if l.Err != model.ErrNone || len(l.Txns) != 2 || l.Txns[0].TransactionalID != "t1" || l.Txns[1] != (model.TxnListing{TransactionalID: "t2", PID: 8, State: model.TxnCompleteAbort}) {
		t.Fatalf("list: %+v", l)
	}
	l = reply(&model.ListTransactionsRequest{CorrelationID: 2, ProducerIDs: []model.ProducerID{8, 9}}).(*model.ListTransactionsResponse)
	if len(l.Txns) != 1 || l.Txns[0].TransactionalID != "t2" {
		t.Fatalf("list pids 8, 9: %+v", l.Txns)
	}
	d := reply(&model.DescribeTransactionsRequest{CorrelationID: 3, TransactionalIDs: []string{"t1", "t3", "nope", ""}}).(*model.DescribeTransactionsResponse)
	if len(d.Txns) != 4 {
		t.Fatalf("describe: %+v", d.Txns)
	}
	if g := d.Txns[0]; g.Err != model.ErrNone || g.PID != 7 || g.Epoch != 2 || g.State != model.TxnOngoing || !slices.Equal(g.Partitions, []int32{0, 1}) {
		t.Errorf("t1: %+v", g)
	}
	for i, want := range []model.ErrCode{model.ErrTransactionalIDNotFound, model.ErrTransactionalIDNotFound, model.ErrInvalidRequest} {
		if g := d.Txns[i+1]; g.Err != want {
			t.Errorf("%q: %v, want %v", g.TransactionalID, g.Err, want)
		}
	}
}
