package client

import (
	"github.com/idemsim/idemsim/model"
	"math/rand/v2"
)

// Reset makes p a new producer instance: afterwards it behaves exactly as
// NewProducer(cfg, app, leaders, rng) would, and equals it field by field
// but for its allocator state (pool), while keeping the memory of its own
// objects: its partition states, connections, requests and batches, which
// never leave the instance (recycle.go), and its effect buffer.
// What left the instance is let go, never reused: the produce requests
// and their batch arrays (carved from slabs), and the records, which the
// broker's log, the network and the observers share. Nothing of the
// previous run stays reachable from p; its client policy is chosen again,
// from cfg.Policy. leaders is the caller's, as for NewProducer. Reset of
// the zero Producer is NewProducer.
func (p *Producer) Reset(cfg ProducerConfig, app int32, leaders []int32, rng *rand.Rand) {
	p.takeBack()
	p.held.Reset()
	*p = Producer{cfg: cfg, policy: cfg.Policy.behaviour(), app: app, rng: rng, leaders: leaders, pid: model.NoProducerID, epoch: model.NoEpoch, wakeAt: -1,
		parts: p.resetParts(len(leaders)), out: model.EmptiedNonNil(p.out), held: p.held, pool: p.pool}
	p.hints = p.policy.leaderHints(cfg.ClientVersion)
	p.drainAfter = p.policy.drainAfterAnswers()
	p.nagle = p.policy.nagle() && !cfg.NagleDisable
	p.hintReplaces = p.hints && p.policy.hintReplacesMetadata()
	if n := len(leaders); cap(p.pool.recs) >= n {
		p.pool.recs = p.pool.recs[:n] // rewound or zeroed by takeBack
	} else {
		p.pool.recs = append(p.pool.recs[:cap(p.pool.recs)], make([]recordStore, n-cap(p.pool.recs))...)
	}
}

// takeBack returns every request, batch and connection of the run to
// the pool, zeroed, and drops the pool's outgoing slabs and records.
func (p *Producer) takeBack() {
	pl := &p.pool
	// Requests: those in flight, and those a batch is on the wire in. A
	// request in use has a correlation id (1, 2, ...); a zeroed one has
	// none, so each is taken once.
	take := func(q *prequest) {
		if q == nil || q.corr == 0 {
			return
		}
		clear(q.batches)
		*q = prequest{batches: q.batches[:0]}
		if len(pl.freeReqs) < freeReqsMax {
			pl.freeReqs = append(pl.freeReqs, q)
		}
	}
	for _, c := range p.conns {
		for _, q := range c.inflight {
			take(q)
		}
	}
	for _, ps := range p.parts {
		for _, l := range [...][]*pbatch{ps.queue, ps.unacked, ps.live} {
			for _, b := range l {
				take(b.req)
			}
		}
	}
	// Batches: every one came from the arena, and the instance is done
	// with all of them.
	pl.freeBatches = model.Emptied(pl.freeBatches)
	pl.batchObjs.Rewind()
	for _, c := range p.conns {
		*c = dconn{spare: keepLonger(c.spare, c.inflight)}
		pl.freeConns = append(pl.freeConns, c)
	}
	if p.conns != nil {
		pl.connsMem = model.Emptied(p.conns)
	}
	if pl.reclaim {
		pl.reqSlab.Rewind()
		pl.batchSlab.Rewind()
		for i := range pl.recs[:cap(pl.recs)] {
			pl.recs[:cap(pl.recs)][i].rewind()
		}
	} else {
		pl.reqSlab, pl.batchSlab = model.Slab[model.ProduceRequest]{}, model.Slab[model.Batch]{}
		pl.recs, pl.recKeepers = model.Emptied(pl.recs), 0
	}
	if pl.msgs != nil {
		pl.msgs.reclaim = pl.reclaim
	}
	resetPool(&pl.msgs)
	pl.reclaim = false
	pl.drainBuf, pl.expBuf, pl.notes, pl.txnIDs = model.Emptied(pl.drainBuf), model.Emptied(pl.expBuf), model.Emptied(pl.notes), model.Emptied(pl.txnIDs)
	pl.results, pl.txns = model.Emptied(pl.results), model.Emptied(pl.txns)
}

// resetParts returns n partition states as NewProducer makes them,
// reusing p's (nil for none, as NewProducer's).
func (p *Producer) resetParts(n int) []*partState {
	if n == 0 {
		return nil
	}
	old := p.parts[:cap(p.parts)]
	parts := p.parts[:0]
	for i := range n {
		var ps *partState
		if i < len(old) && old[i] != nil {
			ps = old[i]
		} else {
			ps = new(partState)
		}
		sp := listSpare{queue: keepLonger(ps.sp.queue, ps.queue), live: keepLonger(ps.sp.live, ps.live), unacked: keepLonger(ps.sp.unacked, ps.unacked)}
		*ps = partState{id: int32(i), pid: model.NoProducerID, epoch: model.NoEpoch, lastAckedSeq: -1, lastAckedOffset: -1, ppNext: -1, sp: sp}
		parts = append(parts, ps)
	}
	clear(parts[n:cap(parts)])
	return parts
}
