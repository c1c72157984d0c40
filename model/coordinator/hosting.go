package coordinator

import (
	"slices"

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

// Resign answers, as the transaction coordinator leaves its host for
// another broker (a move: the old host goes on running), every client
// request whose transition is still being written
// (CoordinatorConfig.LogAppendTime) NOT_COORDINATOR, in the order the
// writes started; the client looks the coordinator up again at once. In
// Kafka the old host becomes a follower of __transaction_state: the
// append waiting for its replicas completes with NOT_LEADER_OR_FOLLOWER
// (ReplicaManager's become-follower path completes the delayed produce;
// Partition.checkEnoughReplicasReachOffset), and the append callback of
// TransactionStateManager.appendTransactionToLog maps it to
// NOT_COORDINATOR; had the append succeeded, the callback would find the
// partition's cache entry gone (removeTransactionsForTxnTopicPartition)
// or its coordinator epoch changed and answer NOT_COORDINATOR too
// (core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala,
// 3.x: updateCacheCallback's error mapping "NOT_LEADER_OR_FOLLOWER |
// KAFKA_STORAGE_ERROR => NOT_COORDINATOR", its "Right(None)" branch and,
// 3.8.0 l.681-689, its coordinator epoch check). Either way the pending
// transition is never completed (its metadata goes with the cache
// entry), and the new host loads a log that does not hold the write.
//
// A write no client waits for (a Complete*) goes unanswered, and a
// broker's verification waits on a connection that the move breaks. The
// caller then crashes the coordinator and restarts it on the new host,
// which drops the writes (Crash).
func (c *Coordinator) Resign() []model.Out {
	n := &c.node
	n.Outs = n.Outs[:0]
	n.Obs.Reset()
	ks := make([]uint64, 0, len(n.writes))
	for k := range n.writes {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	for _, k := range ks {
		w := n.writes[k]
		switch r := w.reply.(type) {
		case *model.InitProducerIDResponse:
			r.Err, r.PID, r.Epoch = model.ErrNotCoordinator, model.NoProducerID, model.NoEpoch
		case *model.TxnResponse:
			r.Err, r.PID, r.Epoch = model.ErrNotCoordinator, model.NoProducerID, model.NoEpoch
		default:
			continue
		}
		c.reply(w.to, w.reply)
	}
	return n.Outs
}

// gated answers a consumer's group request that the group coordinator
// does not handle (see [Hosting]) and reports whether it did: JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup, OffsetCommit and OffsetFetch get
// NOT_COORDINATOR from the old host and COORDINATOR_LOAD_IN_PROGRESS
// from the new one while it loads, but for a Heartbeat, which a loading
// coordinator answers NONE ("the group is still loading, so respond just
// blindly"). Kafka 3.x's classic coordinator checks every group request
// so (core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala,
// validateGroupStatus: COORDINATOR_LOAD_IN_PROGRESS while
// isCoordinatorLoadInProgress, NOT_COORDINATOR when not
// isCoordinatorForGroup; handleHeartbeat answers NONE for the first);
// from 4.0 the group coordinator runtime does
// (CoordinatorRuntime.withActiveContextOrThrow, scheduleWriteOperation
// and scheduleReadOperation: NOT_COORDINATOR for a partition it does not
// own, COORDINATOR_LOAD_IN_PROGRESS while it loads;
// GroupCoordinatorService.heartbeat answers NONE for the latter). The
// rejected request changes nothing: no member joins, no session is
// refreshed, no offset is stored.
func (g *GroupCoordinator) gated(now sim.Time, from model.Peer, m model.Message) bool {
	var coord int32
	switch m := m.(type) {
	case *model.JoinGroupRequest:
		coord = m.Coord
	case *model.SyncGroupRequest:
		coord = m.Coord
	case *model.HeartbeatRequest:
		coord = m.Coord
	case *model.LeaveGroupRequest:
		coord = m.Coord
	case *model.OffsetCommitRequest:
		coord = m.Coord
	case *model.ConsumerOffsetFetchRequest:
		coord = m.Coord
	default:
		return false
	}
	err := g.hosting.Gate(now, coord)
	if err == model.ErrNone {
		return false
	}
	switch m := m.(type) {
	case *model.JoinGroupRequest:
		g.reply(from, model.Carve(&g.msgs.joinResps, model.JoinGroupResponse{CorrelationID: m.CorrelationID, GroupID: m.GroupID, Err: err,
			GenerationID: model.NoGeneration, MemberID: m.MemberID}))
	case *model.SyncGroupRequest:
		g.reply(from, model.Carve(&g.msgs.syncResps, model.SyncGroupResponse{CorrelationID: m.CorrelationID, GroupID: m.GroupID, Err: err}))
	case *model.HeartbeatRequest:
		if err == model.ErrCoordinatorLoadInProgress {
			err = model.ErrNone
		}
		g.reply(from, model.Carve(&g.msgs.hbResps, model.HeartbeatResponse{CorrelationID: m.CorrelationID, GroupID: m.GroupID, Err: err}))
	case *model.LeaveGroupRequest:
		g.reply(from, model.Carve(&g.msgs.leaveResps, model.LeaveGroupResponse{CorrelationID: m.CorrelationID, GroupID: m.GroupID, Err: err}))
	case *model.OffsetCommitRequest:
		g.reply(from, &model.OffsetCommitResponse{CorrelationID: m.CorrelationID, Err: err})
	case *model.ConsumerOffsetFetchRequest:
		g.reply(from, &model.ConsumerOffsetFetchResponse{CorrelationID: m.CorrelationID, Err: err})
	}
	return true
}
