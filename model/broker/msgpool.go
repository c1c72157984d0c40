package broker

import "github.com/idemsim/idemsim/model"

// msgPool carves a broker's messages from slabs ([model.Slab]): its
// verifications, its marker answers and, replicating, a follower's fetches,
// a leader's answers and the batch lists they carry; a few allocations per
// chunk instead of one each. Like any slab value, a message is never handed
// out twice in a run. reset keeps the slabs for the next run only when the
// owner vouched that no one holds the run's messages (reclaim, set by the
// node's Reclaim); otherwise it lets them go. How the node allocates, not
// what it knows: a state hash need not cover it.
type msgPool struct {
	verifyReqs  model.Slab[model.VerifyPartitionsRequest]
	markerResps model.Slab[model.WriteTxnMarkersResponse]
	replFetches model.Slab[model.FetchRequest]
	replAnswers model.Slab[model.FetchResponse]
	replBatches model.Slab[model.ReplicaBatch]
	parts       model.Slab[int32]
	errs        model.Slab[model.ErrCode]
	reclaim     bool
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
	m.verifyReqs.Rewind()
	m.markerResps.Rewind()
	m.replFetches.Rewind()
	m.replAnswers.Rewind()
	m.replBatches.Rewind()
	m.parts.Rewind()
	m.errs.Rewind()
	m.reclaim = false
}
