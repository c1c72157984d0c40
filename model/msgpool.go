package model

// msgPool carves a server's messages from slabs (slab.go): the requests
// it sends, the answers it gives and their lists, a few allocations per
// chunk instead of one each. Like any slab value, a message is never
// handed out twice in a run. reset keeps the slabs for the next run only
// when the owner vouched that no one holds the run's messages (reclaim,
// set by the node's Reclaim); otherwise it lets them go. How the server
// allocates, not what it knows: a state hash need not cover it.
type msgPool struct {
	txnResps    slab[TxnResponse]
	initResps   slab[InitProducerIDResponse]
	verifyReqs  slab[VerifyPartitionsRequest]
	verifyResps slab[VerifyPartitionsResponse]
	markerReqs  slab[WriteTxnMarkersRequest]
	markerResps slab[WriteTxnMarkersResponse]
	fetchResps  slab[OffsetFetchResponse]
	// Replication: a follower's fetches, a leader's answers and the
	// batch lists they carry.
	replFetches slab[FetchRequest]
	replAnswers slab[FetchResponse]
	replBatches slab[ReplicaBatch]
	// A producer's requests to the coordinator.
	initReqs     slab[InitProducerIDRequest]
	addOffsets   slab[AddOffsetsToTxnRequest]
	offsetCommit slab[TxnOffsetCommitRequest]
	addParts     slab[AddPartitionsToTxnRequest]
	endTxn       slab[EndTxnRequest]
	parts        slab[int32]
	markers      slab[TxnMarker]
	errs         slab[ErrCode]
	// pending are the coordinator's marker requests awaiting answers
	// (its own state, never handed out).
	pending slab[markerReq]
	reclaim bool
}

// resetPool readies *m for a new run, making it on first use (a node
// holds its pool by pointer, so that a reset does not copy it about).
func resetPool(m **msgPool) {
	if *m == nil {
		*m = &msgPool{}
		return
	}
	(*m).reset()
}

// reset readies the pool for a new run.
func (m *msgPool) reset() {
	if !m.reclaim {
		*m = msgPool{}
		return
	}
	m.txnResps.rewind()
	m.initResps.rewind()
	m.verifyReqs.rewind()
	m.verifyResps.rewind()
	m.markerReqs.rewind()
	m.markerResps.rewind()
	m.fetchResps.rewind()
	m.replFetches.rewind()
	m.replAnswers.rewind()
	m.replBatches.rewind()
	m.initReqs.rewind()
	m.addOffsets.rewind()
	m.offsetCommit.rewind()
	m.addParts.rewind()
	m.endTxn.rewind()
	m.parts.rewind()
	m.markers.rewind()
	m.errs.rewind()
	m.pending.rewind()
	m.reclaim = false
}

// carve returns a pointer to a fresh value of s holding v.
func carve[T any](s *slab[T], v T) *T {
	p := s.new()
	*p = v
	return p
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
