package model

import "github.com/idemsim/idemsim/sim"

// The coordinator as a node ([Server]): requests in, responses, marker
// writes and timers out. The transaction logic itself is in coordinator.go.

// coordinatorNode is the coordinator's node state.
type coordinatorNode struct {
	// markers counts, per transactional id, the WriteTxnMarkers requests
	// whose answer is still due; at 0 the transaction completes.
	markers map[string]int
	// timeouts drives the periodic timed-out transaction check.
	timeouts checkTimer
	out      []Out
}

// Step handles InitProducerId, AddPartitionsToTxn, EndTxn, a partition
// leader's verification and the leaders' marker-write answers.
func (c *Coordinator) Step(now sim.Time, from Peer, m Message) []Out {
	n := &c.node
	n.out = n.out[:0]
	switch m := m.(type) {
	case *InitProducerIDRequest:
		call := InitProducerIDCall{ProducerID: m.ExpectedPID, ProducerEpoch: m.ExpectedEpoch, TransactionTimeout: m.TransactionTimeout}
		if m.TransactionalID != "" {
			id := m.TransactionalID
			call.TransactionalID = &id
		}
		res := c.InitProducerID(now, call)
		c.observe(Obs{Kind: ObsEpoch, Peer: from.Node, Err: res.Err, PID: res.ProducerID, Epoch: res.Epoch, Text: res.Reason})
		c.sendMarkers(m.TransactionalID, res.Markers)
		c.reply(from, &InitProducerIDResponse{CorrelationID: m.CorrelationID, Err: res.Err, PID: res.ProducerID, Epoch: res.Epoch})
	case *AddPartitionsToTxnRequest:
		err := c.AddPartitionsToTxn(now, m.TransactionalID, m.PID, m.Epoch, m.Partitions)
		c.observe(Obs{Kind: ObsTxnOp, Peer: from.Node, Err: err, Msg: m})
		c.reply(from, &TxnResponse{CorrelationID: m.CorrelationID, Op: "AddPartitionsToTxn", Err: err})
	case *AddOffsetsToTxnRequest:
		// The group's __consumer_offsets partition joins the transaction
		// (TransactionCoordinator.handleAddPartitionsToTransaction with
		// the offsets topic partition); its markers go to the group
		// coordinator.
		err := c.AddPartitionsToTxn(now, m.TransactionalID, m.PID, m.Epoch, []int32{OffsetsPartition})
		c.observe(Obs{Kind: ObsTxnOp, Peer: from.Node, Err: err, Msg: m})
		c.reply(from, &TxnResponse{CorrelationID: m.CorrelationID, Op: "AddOffsetsToTxn", Err: err})
	case *EndTxnRequest:
		res := c.EndTxn(now, EndTxnCall{TransactionalID: m.TransactionalID, ProducerID: m.PID, ProducerEpoch: m.Epoch, Commit: m.Commit})
		c.observe(Obs{Kind: ObsTxnOp, Peer: from.Node, Err: res.Err, Msg: m})
		c.sendMarkers(m.TransactionalID, res.Markers)
		c.reply(from, &TxnResponse{CorrelationID: m.CorrelationID, Op: "EndTxn", Err: res.Err})
	case *VerifyPartitionsRequest:
		resp := &VerifyPartitionsResponse{Partitions: m.Partitions, Errs: make([]ErrCode, len(m.Partitions))}
		for i, p := range m.Partitions {
			resp.Errs[i] = c.VerifyPartition(m.TransactionalID, m.PID, m.Epoch, p)
		}
		c.reply(from, resp)
	case *WriteTxnMarkersResponse:
		if n.markers[m.TransactionalID]--; n.markers[m.TransactionalID] <= 0 {
			delete(n.markers, m.TransactionalID)
			c.MarkersWritten(now, m.TransactionalID)
		}
	default:
		panic("model: the coordinator cannot handle " + string(m.AppendDescription(nil)))
	}
	c.armTimeouts()
	return n.out
}

// sendMarkers sends a transaction's markers to their partitions' leaders,
// one WriteTxnMarkers request per leader, in the order of the leaders'
// first markers.
func (c *Coordinator) sendMarkers(txnID string, mk []TxnMarker) {
	if len(mk) == 0 {
		return
	}
	n := &c.node
	leader := func(p int32) int32 {
		switch {
		case p == OffsetsPartition:
			return DestGroupCoordinator
		case int(p) < len(c.cfg.Leaders) && p >= 0:
			return c.cfg.Leaders[p]
		}
		return 0
	}
	var reqs []*WriteTxnMarkersRequest
	var dests []int32
	for _, m := range mk {
		d := leader(m.Partition)
		i := 0
		for i < len(dests) && dests[i] != d {
			i++
		}
		if i == len(dests) {
			dests = append(dests, d)
			reqs = append(reqs, &WriteTxnMarkersRequest{TransactionalID: txnID})
		}
		reqs[i].Markers = append(reqs[i].Markers, m)
	}
	n.markers[txnID] += len(reqs)
	for i, r := range reqs {
		n.out = append(n.out, Out{Kind: OutSend, Dest: dests[i], Msg: r})
	}
}

// Wake runs the timed-out transaction check due at the token's boundary
// (TransactionCoordinator.abortTimedOutTransactions): each timed-out
// transaction is fenced and aborted, its markers sent.
func (c *Coordinator) Wake(now sim.Time, token uint64) []Out {
	n := &c.node
	n.out = n.out[:0]
	at, ok := n.timeouts.fire(token)
	if !ok {
		return n.out
	}
	mk := c.AbortTimedOutTransactions(at)
	if len(mk) > 0 {
		c.observe(Obs{Kind: ObsTxnTimeouts, Until: at})
		// The markers come in transactional-id order; send each id's.
		for i := 0; i < len(mk); {
			j := i
			for j < len(mk) && mk[j].TransactionalID == mk[i].TransactionalID {
				j++
			}
			c.sendMarkers(mk[i].TransactionalID, mk[i:j])
			i = j
		}
	}
	c.armTimeouts()
	return n.out
}

// armTimeouts asks for a wake-up at the first check boundary at which an
// ongoing transaction has timed out, if there is one: with no open
// transaction the coordinator sets no timer, so runs still drain.
func (c *Coordinator) armTimeouts() {
	n := &c.node
	every := sim.Time(c.cfg.TimeoutCheckInterval)
	if every <= 0 {
		return
	}
	next, ok := sim.Time(0), false
	for _, m := range c.txns {
		if m.State != TxnOngoing {
			continue
		}
		if d := m.TxnStartTime.Add(m.TxnTimeout); !ok || d < next {
			next, ok = d, true
		}
	}
	if !ok {
		return
	}
	if o, ok := n.timeouts.arm(next, every); ok {
		n.out = append(n.out, o)
	}
}

// Crash loses the coordinator's timer. Its transaction state stands for
// __transaction_state and survives (a simplification: Kafka reloads it on
// the new coordinator).
func (c *Coordinator) Crash() { c.node.timeouts.stop() }

// Restart re-arms the timeout check.
func (c *Coordinator) Restart(now sim.Time, clean bool) []Out {
	c.node.out = c.node.out[:0]
	c.armTimeouts()
	return c.node.out
}

func (c *Coordinator) reply(to Peer, m Message) {
	c.node.out = append(c.node.out, Out{Kind: OutReply, Peer: to, Msg: m})
}

func (c *Coordinator) observe(o Obs) { c.node.out = append(c.node.out, Out{Kind: OutObserve, Obs: o}) }

var _ Server = (*Coordinator)(nil)
