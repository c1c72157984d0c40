package coordinator

import (
	"slices"

	"github.com/idemsim/idemsim/model"
)

// The admin's requests to the transaction coordinator (KIP-664, Kafka
// 3.0.0), from core/src/main/scala/kafka/coordinator/transaction/:
// TransactionCoordinator.handleListTransactions and
// handleDescribeTransactions, which read the installed metadata
// (TransactionStateManager.listTransactionStates, getTransactionState),
// not a transition being written. A crashed coordinator answers nothing
// (its requests are lost), so COORDINATOR_NOT_AVAILABLE and
// COORDINATOR_LOAD_IN_PROGRESS are not answered here; the admin retries
// a request that timed out.

// listTransactions answers ListTransactions: every transactional id not
// Dead, filtered by producer id when the request names some
// (listTransactionStates' shouldInclude), in id order. The state filter
// and KIP-994's duration filter (Kafka 3.8) are not modelled.
func (c *Coordinator) listTransactions(from model.Peer, m *model.ListTransactionsRequest) {
	resp := &model.ListTransactionsResponse{CorrelationID: m.CorrelationID}
	for _, id := range c.TransactionalIDs() {
		t := c.txns[id]
		if t.State == model.TxnDead || len(m.ProducerIDs) > 0 && !slices.Contains(m.ProducerIDs, t.ProducerID) {
			continue
		}
		resp.Txns = append(resp.Txns, model.TxnListing{TransactionalID: id, PID: t.ProducerID, State: t.State})
	}
	c.reply(from, resp)
}

// describeTransactions answers DescribeTransactions: for each id, its
// producer id and epoch, state, timeout, start time and partitions, or
// TRANSACTIONAL_ID_NOT_FOUND for an id the coordinator does not have or
// is expiring (Dead); INVALID_REQUEST for an empty id.
func (c *Coordinator) describeTransactions(from model.Peer, m *model.DescribeTransactionsRequest) {
	resp := &model.DescribeTransactionsResponse{CorrelationID: m.CorrelationID}
	for _, id := range m.TransactionalIDs {
		d := model.TxnDescription{TransactionalID: id, PID: model.NoProducerID, Epoch: model.NoEpoch}
		switch t := c.txns[id]; {
		case id == "":
			d.Err = model.ErrInvalidRequest
		case t == nil || t.State == model.TxnDead:
			d.Err = model.ErrTransactionalIDNotFound
		default:
			d.PID, d.Epoch, d.State = t.ProducerID, t.ProducerEpoch, t.State
			d.Timeout, d.StartTime = t.TxnTimeout.Milliseconds(), t.TxnStartTime
			d.Partitions = slices.Clone(t.Partitions)
		}
		resp.Txns = append(resp.Txns, d)
	}
	c.reply(from, resp)
}
