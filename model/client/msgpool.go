package client

import "github.com/idemsim/idemsim/model"

// msgPool carves a producer's requests to the transaction and group
// coordinators from slabs ([model.Slab]): a few allocations per chunk
// instead of one each. Like any slab value, a message is never handed out
// twice in a run. reset keeps the slabs for the next run only when the
// owner vouched that no one holds the run's messages (reclaim, set by the
// node's Reclaim); otherwise it lets them go. How the node allocates, not
// what it knows: a state hash need not cover it.
type msgPool struct {
	initReqs     model.Slab[model.InitProducerIDRequest]
	addOffsets   model.Slab[model.AddOffsetsToTxnRequest]
	offsetCommit model.Slab[model.TxnOffsetCommitRequest]
	addParts     model.Slab[model.AddPartitionsToTxnRequest]
	endTxn       model.Slab[model.EndTxnRequest]
	parts        model.Slab[int32]
	reclaim      bool
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
	m.initReqs.Rewind()
	m.addOffsets.Rewind()
	m.offsetCommit.Rewind()
	m.addParts.Rewind()
	m.endTxn.Rewind()
	m.parts.Rewind()
	m.reclaim = false
}
