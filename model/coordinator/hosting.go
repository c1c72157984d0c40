package coordinator

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Hosting is where a coordinator lives in a replicated run: on the broker
// that leads its log's partition (__transaction_state for the transaction
// coordinator, __consumer_offsets for the group coordinator). When that
// leadership moves, the old broker resigns
// (TransactionCoordinator.onResignation,
// TransactionStateManager.removeTransactionsForTxnTopicPartition: the
// partition's cache entry goes, so every request for its ids gets
// NOT_COORDINATOR) and the new one loads the log
// (TransactionCoordinator.onElection,
// TransactionStateManager.loadTransactionsForTxnTopicPartition: while the
// partition is in loadingPartitions every request gets
// COORDINATOR_LOAD_IN_PROGRESS). Both answers come from
// TransactionStateManager.getAndMaybeAddTransactionState
// (core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala);
// the group coordinator answers the same two errors from its runtime
// (coordinator-common's CoordinatorRuntime.withActiveContextOrThrow:
// NOT_COORDINATOR when it does not own the partition,
// COORDINATOR_LOAD_IN_PROGRESS while the partition loads).
//
// The model keeps one coordinator node and one log, and tells which
// broker the client addressed by the tag the request carries
// ([model.InitProducerIDRequest.Coord]): a request sent to the old host
// (a client that has not looked the coordinator up again) is answered
// NOT_COORDINATOR, one to the new host before LoadedAt
// COORDINATOR_LOAD_IN_PROGRESS. The zero Hosting is a coordinator on no
// broker, which every request reaches.
type Hosting struct {
	// tag is the host's [model.CoordTag], 0 for none.
	tag int32
	// loadedAt is when the host finished loading the log.
	loadedAt sim.Time
}

// Move puts the coordinator on broker host (an index, or model.CoordSelf
// for none), loaded from loadedAt on.
func (h *Hosting) Move(host int32, loadedAt sim.Time) {
	h.tag, h.loadedAt = model.CoordTag(host), loadedAt
}

// Gate returns the error a request the client sent to coord (its tag,
// 0 for none) gets at now, ErrNone if the coordinator handles it.
func (h *Hosting) Gate(now sim.Time, coord int32) model.ErrCode {
	switch {
	case h.tag == 0 || coord == 0:
		return model.ErrNone
	case coord != h.tag:
		return model.ErrNotCoordinator
	case now < h.loadedAt:
		return model.ErrCoordinatorLoadInProgress
	}
	return model.ErrNone
}

// Host moves the transaction coordinator to broker host (see [Hosting]).
func (c *Coordinator) Host(host int32, loadedAt sim.Time) { c.hosting.Move(host, loadedAt) }

// Host moves the group coordinator to broker host (see [Hosting]).
func (g *GroupCoordinator) Host(host int32, loadedAt sim.Time) { g.hosting.Move(host, loadedAt) }

// gated answers a client's transactional request that its coordinator
// does not handle (see [Hosting]) and reports whether it did.
func (c *Coordinator) gated(now sim.Time, from model.Peer, m model.Message) bool {
	var coord int32
	var corr int64
	op := ""
	switch m := m.(type) {
	case *model.InitProducerIDRequest:
		if m.TransactionalID == "" {
			return false // an idempotent producer's: any broker answers it
		}
		coord, corr = m.Coord, m.CorrelationID
	case *model.AddPartitionsToTxnRequest:
		coord, corr, op = m.Coord, m.CorrelationID, "AddPartitionsToTxn"
	case *model.AddOffsetsToTxnRequest:
		coord, corr, op = m.Coord, m.CorrelationID, "AddOffsetsToTxn"
	case *model.EndTxnRequest:
		coord, corr, op = m.Coord, m.CorrelationID, "EndTxn"
	default:
		return false
	}
	err := c.hosting.Gate(now, coord)
	if err == model.ErrNone {
		return false
	}
	if op == "" {
		c.reply(from, model.Carve(&c.node.msgs.initResps, model.InitProducerIDResponse{CorrelationID: corr, Err: err, PID: model.NoProducerID, Epoch: model.NoEpoch}))
	} else {
		c.reply(from, model.Carve(&c.node.msgs.txnResps, model.TxnResponse{CorrelationID: corr, Op: op, Err: err, PID: model.NoProducerID, Epoch: model.NoEpoch}))
	}
	return true
}
