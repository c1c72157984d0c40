package coordinator

import (
	"slices"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// The coordinator as a node ([model.Server]): requests in, responses, marker
// writes and timers out. The transaction logic itself is in coordinator.go,
// the __transaction_state log in txnlog.go.
//
// Every completed transition is logged before its answer goes out
// (TransactionStateManager.appendTransactionToLog; in
// TransactionCoordinator.endTransaction the EndTxn response follows the
// Prepare* write, and addTxnMarkersToSend follows the response). Writes
// are one step (a simplification of a replicated write), so what a crash
// loses is what was never on the log: the marker queue, lastProducerEpoch
// and the previous producer id (TransactionLog.valueToBytes does not
// write them), and the timers. A restart reloads the log as a new
// coordinator epoch and sends the markers of every Prepare* again
// (TransactionStateManager.loadTransactionsForTxnTopicPartition).

// Timer token spaces: the low tokens are the timeout check's; marker
// requests and the expiration check set the high bits.
const (
	tokMarker     uint64 = 1 << 63
	tokExpiration uint64 = 1 << 62
	tokWrite      uint64 = 1 << 61
	// tokRetry marks a marker retry wake-up; its low bits carry the
	// retry time it was asked for, so that a node whose clock drifts
	// retries what was due at its own clock's time, not by the true time.
	tokRetry uint64 = 1 << 60
)

// retryWake is the wake-up that retries the markers due by at.
func retryWake(at sim.Time) model.Out {
	return model.Out{Kind: model.OutWake, At: at, Timer: tokMarker | tokRetry | uint64(at), Owed: true}
}

// coordinatorNode is the coordinator's node state.
type coordinatorNode struct {
	// jobs are the transactions whose markers are being written, by id.
	jobs map[string]*markerJob
	// reqs are the WriteTxnMarkers requests awaiting an answer, by
	// correlation id.
	reqs    map[int64]*markerReq
	nextReq int64
	// fails counts, per destination, the connection breaks in a row
	// since its last answer: the reconnect backoff doubles with each
	// (reconnectBackoff).
	fails map[int32]int
	// gaveUp are the transactions whose markers were refused for good:
	// they stay in Prepare* until a reload
	// (TransactionMarkerRequestCompletionHandler.onComplete).
	gaveUp map[string]bool
	// writes are the transitions being written to __transaction_state
	// (CoordinatorConfig.LogAppendTime), by number.
	writes    map[uint64]*pendingWrite
	nextWrite uint64
	// timeouts drives the periodic timed-out transaction check,
	// expiration the transactional-id expiration check.
	timeouts, expiration model.CheckTimer
	model.ServerBufs
	// msgs carves the coordinator's messages (msgpool.go).
	msgs *msgPool
}

// reset makes n a new coordinator's node state, keeping the memory of
// its maps and buffers (the zero node included).
func (n *coordinatorNode) reset() {
	bufs, msgs := n.ServerBufs, n.msgs
	bufs.Clear()
	resetPool(&msgs)
	*n = coordinatorNode{jobs: model.ClearedMap(n.jobs), reqs: model.ClearedMap(n.reqs), writes: model.ClearedMap(n.writes), gaveUp: model.ClearedMap(n.gaveUp),
		fails:    model.ClearedMap(n.fails),
		timeouts: model.NewCheckTimer(), expiration: model.NewCheckTimer(),
		ServerBufs: bufs, msgs: msgs}
}

// markerJob is one transaction's marker writing
// (TransactionMarkerChannelManager's pending completion,
// TransactionMarkerRequestCompletionHandler).
type markerJob struct {
	// inflight counts its unanswered requests; retry holds markers to send
	// again at retryAt.
	inflight int
	retry    []model.TxnMarker
	retryAt  sim.Time
	// gaveUp: a marker was refused for good (INVALID_PRODUCER_EPOCH,
	// TRANSACTION_COORDINATOR_FENCED); the transaction stays in Prepare*
	// until a reload (TransactionMarkerRequestCompletionHandler.onComplete).
	gaveUp bool
}

// pendingWrite is a transition being written to __transaction_state: at
// its completion the coordinator installs it (or, for a Complete*, applies
// it), answers the request and sends the markers
// (TransactionCoordinator.endTransaction's append callback).
type pendingWrite struct {
	id      string
	to      model.Peer
	reply   model.Message // nil: no request waits (a Complete* write)
	markers []model.TxnMarker
	// complete: the write is the Complete* of a transaction whose markers
	// are written; MarkersWritten applies at completion.
	complete bool
}

// markerReq is one WriteTxnMarkers request on its way.
type markerReq struct {
	txnID   string
	markers []model.TxnMarker
	// dest is the leader it went to.
	dest int32
}

// Step handles InitProducerId, AddPartitionsToTxn, EndTxn, a partition
// leader's verification and the leaders' marker-write answers.
func (c *Coordinator) Step(now sim.Time, from model.Peer, m model.Message) []model.Out {
	n := &c.node
	n.Outs = n.Outs[:0]
	n.Obs.Reset()
	if c.hosting.tag != 0 && c.gated(now, from, m) {
		return n.Outs
	}
	switch m := m.(type) {
	case *model.InitProducerIDRequest:
		call := InitProducerIDCall{ProducerID: m.ExpectedPID, ProducerEpoch: m.ExpectedEpoch, TransactionTimeout: m.TransactionTimeout}
		if m.TransactionalID != "" {
			id := m.TransactionalID
			call.TransactionalID = &id
		}
		if c.busy(m.TransactionalID) {
			c.observe(model.Obs{Kind: model.ObsEpoch, Peer: from.Node, Err: model.ErrConcurrentTransactions, PID: model.NoProducerID, Epoch: model.NoEpoch, Text: "transition being written"})
			c.reply(from, model.Carve(&n.msgs.initResps, model.InitProducerIDResponse{CorrelationID: m.CorrelationID, Err: model.ErrConcurrentTransactions, PID: model.NoProducerID, Epoch: model.NoEpoch}))
			break
		}
		res := c.InitProducerID(now, call)
		o := c.observeNext(model.ObsEpoch)
		o.Peer, o.Err, o.PID, o.Epoch, o.Text = from.Node, res.Err, res.ProducerID, res.Epoch, res.Reason
		c.finish(now, m.TransactionalID, from, model.Carve(&n.msgs.initResps, model.InitProducerIDResponse{CorrelationID: m.CorrelationID, Err: res.Err, PID: res.ProducerID, Epoch: res.Epoch}), res.Markers)
	case *model.AddPartitionsToTxnRequest:
		err := model.ErrConcurrentTransactions
		if !c.busy(m.TransactionalID) {
			err = c.AddPartitionsToTxn(now, m.TransactionalID, m.PID, m.Epoch, m.Partitions)
		}
		o := c.observeNext(model.ObsTxnOp)
		o.Peer, o.Err, o.Msg = from.Node, err, m
		c.finish(now, m.TransactionalID, from, model.Carve(&n.msgs.txnResps, model.TxnResponse{CorrelationID: m.CorrelationID, Op: "AddPartitionsToTxn", Err: err}), nil)
	case *model.AddOffsetsToTxnRequest:
		// The group's __consumer_offsets partition joins the transaction
		// (TransactionCoordinator.handleAddPartitionsToTransaction with
		// the offsets topic partition); its markers go to the group
		// coordinator.
		err := model.ErrConcurrentTransactions
		if !c.busy(m.TransactionalID) {
			err = c.AddPartitionsToTxn(now, m.TransactionalID, m.PID, m.Epoch, []int32{model.OffsetsPartition})
		}
		o := c.observeNext(model.ObsTxnOp)
		o.Peer, o.Err, o.Msg = from.Node, err, m
		c.finish(now, m.TransactionalID, from, model.Carve(&n.msgs.txnResps, model.TxnResponse{CorrelationID: m.CorrelationID, Op: "AddOffsetsToTxn", Err: err}), nil)
	case *model.EndTxnRequest:
		res := EndTxnResult{Err: model.ErrConcurrentTransactions, ProducerID: model.NoProducerID, Epoch: model.NoEpoch}
		if !c.busy(m.TransactionalID) {
			res = c.EndTxn(now, EndTxnCall{TransactionalID: m.TransactionalID, ProducerID: m.PID, ProducerEpoch: m.Epoch, Commit: m.Commit, Version: m.Version})
		}
		o := c.observeNext(model.ObsTxnOp)
		o.Peer, o.Err, o.Msg = from.Node, res.Err, m
		// The producer id and epoch the answer carries: with transaction
		// version 2 the epoch the coordinator bumped to (KIP-890), which
		// the epoch-bump count reads. The trace line and hash leave them
		// out.
		o.PID, o.Epoch = res.ProducerID, res.Epoch
		// The response goes out once Prepare* is written, then the
		// markers (TransactionCoordinator.endTransaction).
		c.finish(now, m.TransactionalID, from, model.Carve(&n.msgs.txnResps, model.TxnResponse{CorrelationID: m.CorrelationID, Op: "EndTxn", Err: res.Err, PID: res.ProducerID, Epoch: res.Epoch}), res.Markers)
	case *model.VerifyPartitionsRequest:
		resp := model.Carve(&n.msgs.verifyResps, model.VerifyPartitionsResponse{CorrelationID: m.CorrelationID, Partitions: m.Partitions, Errs: n.msgs.errs.Slice(len(m.Partitions))})
		busy := c.busy(m.TransactionalID)
		for i, p := range m.Partitions {
			switch {
			case busy:
				// A pending transition (TransactionMetadata.pendingState;
				// the source of KAFKA-14904).
				resp.Errs[i] = model.ErrConcurrentTransactions
			case m.Add:
				resp.Errs[i] = c.AddPartitionImplicitly(now, m.TransactionalID, m.PID, m.Epoch, p)
			default:
				resp.Errs[i] = c.VerifyPartition(m.TransactionalID, m.PID, m.Epoch, p)
			}
		}
		c.finish(now, m.TransactionalID, from, resp, nil)
	case *model.WriteTxnMarkersResponse:
		c.markersAnswered(now, m)
	case *model.ListTransactionsRequest:
		c.listTransactions(from, m) // admin.go
	case *model.DescribeTransactionsRequest:
		c.describeTransactions(from, m)
	case *model.MetadataUpdate:
		// The controller's publication: markers go to each partition's
		// current leader (TransactionMarkerChannelManager looks the
		// leader up in the broker's metadata cache on every send,
		// addTxnMarkersToBrokerQueue).
		for _, ps := range m.Partitions {
			if ps.Leader >= 0 && int(ps.Partition) < len(c.cfg.Leaders) {
				c.cfg.Leaders[ps.Partition] = ps.Leader
			}
		}
	case *model.Disconnected:
		c.markersDisconnected(now, m.Dest)
	default:
		panic("model: the coordinator cannot handle " + string(m.AppendDescription(nil)))
	}
	c.arm(now)
	return n.Outs
}

// logged writes id's state to __transaction_state if a transition changed
// it, and observes the installed state (ObsTxnState). A transition being
// written (c.pending) reaches the log only when its own write completes
// (writeDone), never through another caller: Kafka appends the pending
// transition once, in TransactionStateManager.appendTransactionToLog.
func (c *Coordinator) logged(now sim.Time, id string, reloaded bool) {
	m := c.txns[id]
	if m == nil || c.pending[id] != 0 {
		return
	}
	if i, ok := c.log.last[id]; ok && !reloaded {
		// After a tombstone the id starts afresh
		// (TransactionStateManager.removeExpiredTransactionalIds).
		if prev := c.log.records[i].State; prev != model.TxnDead && prev != m.State && !m.State.CanFollow(prev) {
			// Kafka throws IllegalStateException (prepareTransitionTo,
			// l.389): a coordinator bug, never a client error.
			panic("model: illegal transaction transition " + prev.String() + " -> " + m.State.String() + " for " + id)
		}
	}
	if !c.log.append(m, &c.node.msgs.parts) && !reloaded {
		return
	}
	c.observeState(m, reloaded)
}

func (c *Coordinator) observeState(m *TxnMetadata, reloaded bool) {
	o := c.observeNext(model.ObsTxnState)
	o.Text, o.PID, o.Epoch, o.N, o.Parts, o.Flag = m.TransactionalID, m.ProducerID, m.ProducerEpoch, int64(m.State), c.cloneParts(m.Partitions), reloaded
}

// sendMarkers starts writing a transaction's markers: one WriteTxnMarkers
// request per partition leader, in the order of the leaders' first
// markers (TransactionMarkerChannelManager.addTxnMarkersToSend). The
// transaction completes once every marker is written.
func (c *Coordinator) sendMarkers(now sim.Time, txnID string, mk []model.TxnMarker) {
	if len(mk) == 0 {
		c.completeEmpty(now, txnID)
		return
	}
	n := &c.node
	j := n.jobs[txnID]
	if j == nil {
		j = &markerJob{}
		n.jobs[txnID] = j
	}
	c.sendMarkerRequests(now, txnID, j, mk)
}

// leaderOf is the broker that leads partition p, where its marker goes.
func (c *Coordinator) leaderOf(p int32) int32 {
	switch {
	case p == model.OffsetsPartition:
		return model.DestGroupCoordinator
	case int(p) < len(c.cfg.Leaders) && p >= 0:
		return c.cfg.Leaders[p]
	}
	return 0
}

func (c *Coordinator) sendMarkerRequests(now sim.Time, txnID string, j *markerJob, mk []model.TxnMarker) {
	n := &c.node
	var reqs []*model.WriteTxnMarkersRequest
	var dests []int32
	var counts []int
	for _, m := range mk {
		d := c.leaderOf(m.Partition)
		i := slices.Index(dests, d)
		if i < 0 {
			i = len(dests)
			dests = append(dests, d)
			counts = append(counts, 0)
		}
		counts[i]++
	}
	// One request per leader, in the order the leaders first appear, its
	// markers in their order, its list carved at its size.
	for i, d := range dests {
		n.nextReq++
		r := model.Carve(&n.msgs.markerReqs, model.WriteTxnMarkersRequest{CorrelationID: n.nextReq, TransactionalID: txnID, Markers: n.msgs.markers.Slice(counts[i])[:0]})
		for _, m := range mk {
			if c.leaderOf(m.Partition) == d {
				r.Markers = append(r.Markers, m)
			}
		}
		reqs = append(reqs, r)
	}
	for i, r := range reqs {
		n.reqs[r.CorrelationID] = model.Carve(&n.msgs.pending, markerReq{txnID: txnID, markers: r.Markers, dest: dests[i]})
		j.inflight++
		n.Outs = append(n.Outs, model.Out{Kind: model.OutSend, Dest: dests[i], Msg: r})
		// The request's timeout is housekeeping (it stays scheduled
		// after the answer); the retries it may lead to are owed work.
		n.Outs = append(n.Outs, model.Out{Kind: model.OutWake, At: now.Add(c.markerTimeout()), Timer: tokMarker | uint64(r.CorrelationID)})
	}
}

func (c *Coordinator) markerTimeout() time.Duration {
	if c.cfg.MarkerRequestTimeout <= 0 {
		return 30 * time.Second
	}
	return c.cfg.MarkerRequestTimeout
}

func (c *Coordinator) markerBackoff() time.Duration {
	if c.cfg.MarkerRetryBackoff <= 0 {
		return 50 * time.Millisecond
	}
	return c.cfg.MarkerRetryBackoff
}

// markersAnswered handles a leader's WriteTxnMarkers answer per partition
// (TransactionMarkerRequestCompletionHandler.onComplete, l.36):
// NONE writes the partition off; NOT_LEADER_OR_FOLLOWER,
// UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS(_AFTER_APPEND),
// REQUEST_TIMED_OUT and KAFKA_STORAGE_ERROR send it again to the current
// leader; INVALID_PRODUCER_EPOCH and TRANSACTION_COORDINATOR_FENCED give
// the transaction up (it stays in Prepare*, no Complete*). Once nothing is
// left, the transaction completes (CompleteCommit or CompleteAbort).
func (c *Coordinator) markersAnswered(now sim.Time, m *model.WriteTxnMarkersResponse) {
	n := &c.node
	r := n.reqs[m.CorrelationID]
	if r == nil {
		return // an answer to a request of an earlier incarnation, or re-sent already
	}
	delete(n.reqs, m.CorrelationID)
	delete(n.fails, r.dest)
	j := n.jobs[r.txnID]
	if j == nil {
		return
	}
	j.inflight--
	for i, mk := range r.markers {
		e := model.ErrNone
		if i < len(m.Errs) {
			e = m.Errs[i]
		}
		switch e {
		case model.ErrNone:
		case model.ErrInvalidProducerEpoch, model.ErrTransactionCoordinatorFenced:
			j.gaveUp = true
		default:
			if len(j.retry) == 0 {
				j.retryAt = now.Add(c.markerBackoff())
				n.Outs = append(n.Outs, retryWake(j.retryAt))
			}
			j.retry = append(j.retry, mk)
		}
	}
	c.maybeComplete(now, r.txnID, j)
}

// markersDisconnected handles the break of the connection to leader dest
// (TransactionMarkerRequestCompletionHandler.onComplete with
// wasDisconnected, l.36-60): every request in flight to it fails, and its
// markers are queued again for the leader looked up anew
// (addTxnMarkersToBrokerQueue); they go out once the connection can be
// opened again, after the reconnect backoff (reconnectBackoff).
func (c *Coordinator) markersDisconnected(now sim.Time, dest int32) {
	n := &c.node
	var corrs []int64
	for corr, r := range n.reqs {
		if r.dest == dest {
			corrs = append(corrs, corr)
		}
	}
	if len(corrs) == 0 {
		return
	}
	slices.Sort(corrs)
	n.fails[dest]++
	backoff := c.reconnectBackoff(n.fails[dest])
	for _, corr := range corrs {
		r := n.reqs[corr]
		delete(n.reqs, corr)
		j := n.jobs[r.txnID]
		if j == nil {
			continue
		}
		j.inflight--
		if len(j.retry) == 0 || j.retryAt > now.Add(backoff) {
			j.retryAt = now.Add(backoff)
			n.Outs = append(n.Outs, retryWake(j.retryAt))
		}
		j.retry = append(j.retry, r.markers...)
	}
}

// reconnectBackoff is NetworkClient's reconnect backoff after the k-th
// break in a row: reconnect.backoff.ms (50 ms) doubled per break up to
// reconnect.backoff.max.ms (1 s) (ClusterConnectionStates; Kafka adds a
// 20% jitter, left out here). The coordinator's MarkerRetryBackoff, when
// set, is the base.
func (c *Coordinator) reconnectBackoff(k int) time.Duration {
	d := c.markerBackoff()
	for ; k > 1 && d < time.Second; k-- {
		d *= 2
	}
	return min(d, time.Second)
}

// maybeComplete completes the transaction of job j once no marker is in
// flight or waiting, unless the job gave up.
func (c *Coordinator) maybeComplete(now sim.Time, txnID string, j *markerJob) {
	if j.inflight > 0 || len(j.retry) > 0 {
		return
	}
	delete(c.node.jobs, txnID)
	if j.gaveUp {
		c.node.gaveUp[txnID] = true
		c.observe(model.Obs{Kind: model.ObsNote, Text: "gave up writing the markers of " + txnID + ": it stays in Prepare* until the log is reloaded"})
		return
	}
	if c.cfg.LogAppendTime > 0 {
		c.startWrite(now, &pendingWrite{id: txnID, complete: true})
		return
	}
	c.MarkersWritten(now, txnID)
	c.logged(now, txnID, false)
}

// completeEmpty completes a transaction in Prepare* that has no marker to
// write (no partitions): Complete* follows the Prepare* write at once.
// A transaction whose markers were given up stays in Prepare*
// (TransactionMarkerRequestCompletionHandler.onComplete).
func (c *Coordinator) completeEmpty(now sim.Time, txnID string) {
	m := c.txns[txnID]
	if m == nil || m.State != model.TxnPrepareCommit && m.State != model.TxnPrepareAbort ||
		c.node.jobs[txnID] != nil || c.node.gaveUp[txnID] || c.pending[txnID] != 0 {
		return
	}
	c.maybeComplete(now, txnID, &markerJob{})
}

// busy reports whether a transition of transactionalID is being written
// (TransactionMetadata.pendingTransitionInProgress): its requests are
// then refused with CONCURRENT_TRANSACTIONS and change nothing.
func (c *Coordinator) busy(transactionalID string) bool {
	return c.cfg.LogAppendTime > 0 && c.pending[transactionalID] != 0
}

// finish ends a request's handling: when it changed the transaction's
// state and writes take time, the write starts and the answer and the
// markers wait for it; otherwise the state is logged and the answer and
// the markers go out now.
//
// A request that came while a transition of its id was being written
// (busy) was refused with CONCURRENT_TRANSACTIONS: it is answered at once
// and writes nothing. The metadata then differs from the log only by the
// pending transition, which is not this request's to write: writing it
// again would put a second write of one transition in flight, and its
// completion would send the markers again and, later, apply a stale
// Complete* to the transaction that followed. Kafka answers such a
// request without appending (TransactionCoordinator.scala, 3.8.0,
// handleAddPartitionsToTransaction l.415 and endTransaction l.525:
// Left(CONCURRENT_TRANSACTIONS) goes to the response callback, never to
// appendTransactionToLog).
func (c *Coordinator) finish(now sim.Time, id string, to model.Peer, reply model.Message, mk []model.TxnMarker) {
	if c.busy(id) {
		c.reply(to, reply)
		return
	}
	if m := c.txns[id]; c.cfg.LogAppendTime > 0 && m != nil && c.log.changes(m) {
		c.startWrite(now, &pendingWrite{id: id, to: to, reply: reply, markers: mk})
		return
	}
	c.logged(now, id, false)
	c.reply(to, reply)
	c.sendMarkers(now, id, mk)
}

// startWrite starts writing w's transition to __transaction_state and
// marks it pending. A transactional id has at most one pending
// transition: starting a second is a coordinator bug, as in Kafka, where
// TransactionMetadata.prepareTransitionTo throws IllegalStateException
// "while it already a pending state" (core/src/main/scala/kafka/
// coordinator/transaction/TransactionMetadata.scala, 3.8.0, l.378; in
// 4.x transaction-coordinator/src/main/java/org/apache/kafka/coordinator/
// transaction/TransactionMetadata.java).
func (c *Coordinator) startWrite(now sim.Time, w *pendingWrite) {
	n := &c.node
	if c.pending == nil {
		c.pending = map[string]uint64{}
	}
	if c.pending[w.id] != 0 {
		panic("model: a second transition of " + w.id + " while one is being written")
	}
	n.nextWrite++
	c.pending[w.id] = n.nextWrite
	n.writes[n.nextWrite] = w
	n.Outs = append(n.Outs, model.Out{Kind: model.OutWake, At: now.Add(c.cfg.LogAppendTime), Timer: tokWrite | n.nextWrite, Owed: true})
}

// writeDone completes write k: the transition is installed and logged,
// then the answer and the markers go out.
//
// Only the pending transition completes (Kafka's
// TransactionMetadata.completeTransitionTo checks that the transition is
// its pendingState and throws IllegalStateException otherwise,
// TransactionMetadata.scala, 3.8.0, l.404-425). Kafka's append callback
// also checks that the coordinator epoch has not changed since the append
// started, else answers NOT_COORDINATOR (TransactionStateManager.scala,
// 3.8.0, appendTransactionToLog l.681-689); here a write never outlives
// its coordinator epoch: a crash drops the writes in flight with the
// node's memory (Crash), and the world drops a crashed incarnation's
// wake-ups.
func (c *Coordinator) writeDone(now sim.Time, k uint64) {
	n := &c.node
	w := n.writes[k]
	if w == nil {
		return
	}
	delete(n.writes, k)
	if c.pending[w.id] != k {
		panic("model: a write of " + w.id + " completed that is not its pending transition")
	}
	delete(c.pending, w.id)
	if w.complete {
		c.MarkersWritten(now, w.id)
	}
	c.logged(now, w.id, false)
	if w.reply != nil {
		c.reply(w.to, w.reply)
	}
	c.sendMarkers(now, w.id, w.markers)
}

// MarkersPending reports whether the markers of transactionalID are still
// being written.
func (c *Coordinator) MarkersPending(transactionalID string) bool {
	_, ok := c.node.jobs[transactionalID]
	return ok
}

// Wake runs a timer: the timed-out transaction check due at its boundary
// (TransactionCoordinator.abortTimedOutTransactions), the transactional-id
// expiration check, a marker request's timeout (sent again), or the retry
// of refused markers.
func (c *Coordinator) Wake(now sim.Time, token uint64) []model.Out {
	n := &c.node
	n.Outs = n.Outs[:0]
	n.Obs.Reset()
	switch {
	case token&tokWrite != 0 && token&tokMarker == 0:
		c.writeDone(now, token&^tokWrite)
	case token&tokMarker != 0 && token&tokRetry != 0:
		c.retryMarkers(now, sim.Time(token&^(tokMarker|tokRetry)))
	case token&tokMarker != 0:
		c.markerTimer(now, int64(token&^tokMarker))
	case token&tokExpiration != 0:
		if at, ok := n.expiration.Fire(token &^ tokExpiration); ok {
			for _, id := range c.ExpireTransactionalIDs(at) {
				r := &c.log.records[c.log.last[id]]
				c.observe(model.Obs{Kind: model.ObsTxnState, Text: id, PID: r.ProducerID, Epoch: r.ProducerEpoch, N: int64(model.TxnDead)})
			}
		}
	default:
		at, ok := n.timeouts.Fire(token)
		if !ok {
			break
		}
		mk := c.AbortTimedOutTransactions(at)
		if len(mk) > 0 {
			c.observe(model.Obs{Kind: model.ObsTxnTimeouts, Until: at})
		}
		// The markers come in transactional-id order; log and send each
		// id's.
		for i := 0; i < len(mk); {
			j := i
			for j < len(mk) && mk[j].TransactionalID == mk[i].TransactionalID {
				j++
			}
			c.logged(now, mk[i].TransactionalID, false)
			c.sendMarkers(now, mk[i].TransactionalID, mk[i:j])
			i = j
		}
		// Timed-out transactions with no partition: Prepare*, then
		// Complete*.
		for _, id := range c.TransactionalIDs() {
			c.logged(now, id, false)
			c.completeEmpty(now, id)
		}
	}
	c.arm(now)
	return n.Outs
}

// markerTimer handles request corr's timeout.
func (c *Coordinator) markerTimer(now sim.Time, corr int64) {
	n := &c.node
	r := n.reqs[corr]
	if r == nil {
		return // answered
	}
	// A timeout: NetworkClient closes the connection to the leader, which
	// fails every request in flight on it; each is queued again with the
	// leader looked up again (TransactionMarkerRequestCompletionHandler's
	// wasDisconnected branch of onComplete).
	c.observe(model.Obs{Kind: model.ObsNote, Text: "WriteTxnMarkers for " + r.txnID + " timed out: sent again"})
	n.Outs = append(n.Outs, model.Out{Kind: model.OutClose, Dest: r.dest})
	c.markersDisconnected(now, r.dest)
}

// retryMarkers sends again the refused or disconnected markers that were
// due by at, the time the retry wake-up was asked for (on the
// coordinator's own clock).
func (c *Coordinator) retryMarkers(now, at sim.Time) {
	n := &c.node
	ids := make([]string, 0, len(n.jobs))
	for id, j := range n.jobs {
		if len(j.retry) > 0 && j.retryAt <= at {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		j := n.jobs[id]
		mk := j.retry
		j.retry = nil
		c.sendMarkerRequests(now, id, j, mk)
	}
}

// arm asks for the wake-ups of the periodic checks: the timeout check at
// the first boundary at which an ongoing transaction has timed out, the
// expiration check at the first boundary at which an id can expire. With
// nothing due the coordinator sets no timer, so runs still drain.
func (c *Coordinator) arm(now sim.Time) {
	n := &c.node
	timeout, tOK, expire, eOK := c.dueTimes()
	if every := sim.Time(c.cfg.TimeoutCheckInterval); every > 0 && tOK {
		if o, ok := n.timeouts.Arm(timeout, every); ok {
			n.Outs = append(n.Outs, o)
		}
	}
	every := sim.Time(c.cfg.ExpirationCheckInterval)
	if every <= 0 {
		every = sim.Time(DefaultExpirationCheckInterval)
	}
	if eOK {
		if o, ok := n.expiration.Arm(max(expire, now), every); ok {
			o.Timer |= tokExpiration
			n.Outs = append(n.Outs, o)
		}
	}
}

// dueTimes returns, in one pass over the transactions, the earliest time
// an ongoing one has timed out (strictly after its deadline) and the
// earliest time an id can expire, each with whether there is one.
func (c *Coordinator) dueTimes() (timeout sim.Time, tOK bool, expire sim.Time, eOK bool) {
	exp := c.cfg.idExpiration()
	for _, m := range c.txns {
		if m.State == model.TxnOngoing {
			if d := m.TxnStartTime.Add(m.TxnTimeout) + 1; !tOK || d < timeout {
				timeout, tOK = d, true
			}
		}
		if expirable(m) {
			if d := m.LastUpdate.Add(exp); !eOK || d < expire {
				expire, eOK = d, true
			}
		}
	}
	return timeout, tOK, expire, eOK
}

// Crash loses the coordinator's memory: its transaction metadata, the
// marker queue and the timers. __transaction_state survives.
func (c *Coordinator) Crash() {
	c.down = true
	c.txns = map[string]*TxnMetadata{}
	c.pending = nil            // writes in flight are lost
	c.node = coordinatorNode{} // new memory: the last call's effects stay as they were
	c.node.reset()
}

// Restart loads __transaction_state as a new coordinator epoch
// (TransactionCoordinator.onElection, l.451;
// loadTransactionsForTxnTopicPartition, l.520): each id's last record
// wins; lastProducerEpoch and the previous producer id are lost
// (TransactionLog.valueToBytes does not write them); every
// Prepare* sends its markers again under the new coordinator epoch and
// completes once they are written; Ongoing transactions go on (and may
// time out).
func (c *Coordinator) Restart(now sim.Time, clean bool) []model.Out {
	c.node.Outs = c.node.Outs[:0]
	c.node.Obs.Reset()
	if c.down {
		c.down = false
		c.txns = c.log.load()
		c.epoch++
		for _, id := range c.TransactionalIDs() {
			m := c.txns[id]
			c.observeState(m, true)
			mt := model.MarkerCommit
			switch m.State {
			case model.TxnPrepareAbort:
				mt = model.MarkerAbort
			case model.TxnPrepareCommit:
			default:
				continue
			}
			c.sendMarkers(now, id, c.markers(m, m.ProducerID, m.ProducerEpoch, mt))
		}
	}
	c.arm(now)
	return c.node.Outs
}

func (c *Coordinator) reply(to model.Peer, m model.Message) {
	c.node.Outs = append(c.node.Outs, model.Out{Kind: model.OutReply, Peer: to, Msg: m})
}

func (c *Coordinator) observe(o model.Obs) { c.node.Outs = append(c.node.Outs, c.node.Obs.Add(&o)) }

// observeNext reports an observation of kind k that the caller fills in
// at once, in the slab (no 552-byte literal copied in).
func (c *Coordinator) observeNext(k model.ObsKind) *model.Obs {
	o, out := c.node.Obs.Next(k)
	c.node.Outs = append(c.node.Outs, out)
	return o
}

var _ model.Server = (*Coordinator)(nil)

// HoldEffects holds outs in place ([model.EffectHolder]).
func (c *Coordinator) HoldEffects(outs []model.Out) bool { return c.node.HoldEffects(outs) }

// ReleaseEffects ends the newest hold ([model.EffectHolder]).
func (c *Coordinator) ReleaseEffects() { c.node.ReleaseEffects() }

// ClearSpare zeroes the buffers' stale elements ([model.EffectHolder]).
func (c *Coordinator) ClearSpare() { c.node.ClearSpare() }

var _ model.EffectHolder = (*Coordinator)(nil)
