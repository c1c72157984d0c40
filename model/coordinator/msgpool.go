package coordinator

import "github.com/idemsim/idemsim/model"

// msgPool carves the transaction and group coordinators' messages from
// slabs (slab.go): their answers, the marker requests and the lists they
// carry; a few allocations per chunk instead of one each. Like any slab
// value, a message is never handed out twice in a run. reset keeps the
// slabs for the next run only when the owner vouched that no one holds the
// run's messages (reclaim, set by the node's Reclaim); otherwise it lets
// them go. How the node allocates, not what it knows: a state hash need not
// cover it.
type msgPool struct {
	txnResps    model.Slab[model.TxnResponse]
	initResps   model.Slab[model.InitProducerIDResponse]
	verifyResps model.Slab[model.VerifyPartitionsResponse]
	verifyReqs  model.Slab[model.VerifyPartitionsRequest]
	markerReqs  model.Slab[model.WriteTxnMarkersRequest]
	markerResps model.Slab[model.WriteTxnMarkersResponse]
	fetchResps  model.Slab[model.OffsetFetchResponse]
	// The classic groups' answers (classic_group.go).
	joinResps  model.Slab[model.JoinGroupResponse]
	syncResps  model.Slab[model.SyncGroupResponse]
	hbResps    model.Slab[model.HeartbeatResponse]
	leaveResps model.Slab[model.LeaveGroupResponse]
	parts      model.Slab[int32]
	markers    model.Slab[model.TxnMarker]
	errs       model.Slab[model.ErrCode]
	// pending are the coordinator's marker requests awaiting answers
	// (its own state, never handed out).
	pending model.Slab[markerReq]
	reclaim bool
}

// resetPool readies *m for a new run, making it on first use (a node holds
// its pool by pointer, so that a reset does not copy it about).
func resetPool(m **msgPool) {
	if *m == nil {
		*m = &msgPool{}
		return
	}
	(*m).reset()
}

// reset readies the pool for a new run: it keeps the slabs only when
// the owner vouched that no one holds the run's messages (reclaim).
func (m *msgPool) reset() {
	if !m.reclaim {
		*m = msgPool{}
		return
	}
	m.txnResps.Rewind()
	m.initResps.Rewind()
	m.verifyResps.Rewind()
	m.verifyReqs.Rewind()
	m.markerReqs.Rewind()
	m.markerResps.Rewind()
	m.fetchResps.Rewind()
	m.joinResps.Rewind()
	m.syncResps.Rewind()
	m.hbResps.Rewind()
	m.leaveResps.Rewind()
	m.parts.Rewind()
	m.markers.Rewind()
	m.errs.Rewind()
	m.pending.Rewind()
	m.reclaim = false
}

// Reclaim tells c that nobody holds anything it handed out since its last
// Reset (messages, observations), so that its next Reset reuses that
// memory too. A runner calls it between runs whose results keep no
// message; without it, Reset lets that memory go.
func (c *Coordinator) Reclaim() {
	if c.node.msgs != nil {
		c.node.msgs.reclaim = true
	}
	c.log.reclaim = true // nobody holds the run's transaction log (TxnLog)
}

// Reclaim tells g that nobody holds anything it handed out since its last
// Reset, as [Coordinator.Reclaim] does.
func (g *GroupCoordinator) Reclaim() {
	if g.msgs != nil {
		g.msgs.reclaim = true
	}
}
