package client

import (
	"slices"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// The producer recycles the bookkeeping objects whose whole lifetime it
// controls: its requests (prequest) and its batches (pbatch). Neither
// ever leaves the instance; what leaves is the ProduceRequest built from
// them, with copies of the batches' headers and their records (see
// recordStore), which are never recycled.
//
// A prequest is retired once it left its connection's in-flight list and
// its outcome was handled (retire). A pbatch is free once the application
// has its outcome (done), it is in no list of its partition (queue,
// unacked, live), no in-flight request lists it (refs) and it is on the
// wire in none (req).

// producerPool is the instance's allocator state: free requests and
// batches, the chunks new ones and the outgoing produce requests are
// carved from, the record chunks of each partition, and scratch buffers
// that are empty between calls. None of it is the producer's state: two
// instances that differ only in their pools behave alike (a state hash
// need not cover it).
type producerPool struct {
	freeReqs    []*prequest
	freeBatches []*pbatch
	// batchObjs: every batch comes from it; a Reset takes them all back.
	batchObjs model.Arena[pbatch]
	// reqSlab and batchSlab: the produce requests and their batch arrays
	// (never recycled: they leave the instance).
	reqSlab   model.Slab[model.ProduceRequest]
	batchSlab model.Slab[model.Batch]
	// msgs carves its transactional requests (msgpool.go).
	msgs *msgPool
	// recs holds each partition's records, by partition id;
	// recKeepers counts those that keep chunks for the next run.
	recs       []recordStore
	recKeepers int
	// Scratch: the batches a drain gathers for one request, the batches
	// an expiry pass fails.
	drainBuf, expBuf []*pbatch
	// notes holds the call's expired batches its NoteExpired effects
	// point to (copies: the batches themselves may be reused at once).
	notes []model.Batch
	// txnIDs holds the call's transaction results' records (copies: the
	// transaction's list is reused), which their effects point to.
	txnIDs []model.RecordID
	// results and txns hold the call's record outcomes and transaction
	// results, which its OutResult and OutTxnResult effects point to
	// (an effect is 104 bytes smaller than with them inline).
	results []model.Outcome
	txns    []model.TxnResult
	// freeConns are connections a Reset took back, zeroed, for conn;
	// connsMem is the storage of the run's connection list, for the
	// next run's (conns is nil in a new producer and a reset one alike).
	freeConns []*dconn
	connsMem  []*dconn
	// reclaim: the owner vouched nobody holds the run's requests and
	// records (Reclaim); the next Reset rewinds the slabs and record
	// stores instead of dropping them.
	reclaim bool
}

// Reclaim tells p that nobody holds anything it handed out since its last
// Reset (requests, their batches and records, notes), so that its next
// Reset reuses that memory too. A runner calls it between runs whose
// results keep no message or record; without it, Reset lets that memory
// go.
func (p *Producer) Reclaim() { p.pool.reclaim = true }

// The free lists' bounds. In a steady state the instance has its
// in-flight requests in use at once, and the batches of its in-flight
// requests plus those queued during a stall (which an expiry then fails
// together); the objects of a burst beyond that are left to the garbage
// collector, so a backlog's batches do not outlive it (at most 1024
// batches of about 100 bytes stay).
const (
	freeReqsMax    = 64
	freeBatchesMax = 1024
)

// newRequest returns a blank request numbered with the next correlation
// id, to dest, sent at now.
func (p *Producer) newRequest(dest int32, now sim.Time) *prequest {
	p.nextCorr++
	var q *prequest
	if n := len(p.pool.freeReqs); n > 0 {
		q = p.pool.freeReqs[n-1]
		p.pool.freeReqs[n-1] = nil
		p.pool.freeReqs = p.pool.freeReqs[:n-1]
	} else {
		q = &prequest{}
	}
	q.corr, q.dest, q.sentAt = p.nextCorr, dest, now
	return q
}

// retire ends q, which is in no in-flight list any more and whose outcome
// was handled: its batches drop their reference to it, and those that are
// free with it are recycled. q itself is recycled unless a batch is still
// on the wire in it (which a response that lacks one of the request's
// partitions would leave behind).
func (p *Producer) retire(q *prequest) {
	held := false
	for _, b := range q.batches {
		b.refs--
		held = held || b.req == q
		p.maybeFreeBatch(b)
	}
	if held || len(p.pool.freeReqs) >= freeReqsMax {
		return
	}
	if debugRecycle {
		p.checkUnreferenced(nil, q)
	}
	clear(q.batches)
	*q = prequest{batches: q.batches[:0]}
	p.pool.freeReqs = append(p.pool.freeReqs, q)
}

// newBatch returns a blank batch: a recycled one, or else a new one
// carved from a chunk (a stall or a backlog queues batches by the
// thousand, more than the free list keeps).
func (p *Producer) newBatch() *pbatch {
	if n := len(p.pool.freeBatches); n > 0 {
		b := p.pool.freeBatches[n-1]
		p.pool.freeBatches[n-1] = nil
		p.pool.freeBatches = p.pool.freeBatches[:n-1]
		return b
	}
	return p.pool.batchObjs.New()
}

// maybeFreeBatch recycles b if nothing refers to it any more. Its Records
// are dropped, not reused: they may be held outside the instance.
func (p *Producer) maybeFreeBatch(b *pbatch) {
	if !b.done || b.refs > 0 || b.inLive || b.queued || b.req != nil {
		return
	}
	if debugRecycle {
		p.checkUnreferenced(b, nil)
	}
	// Zeroed even when the free list is full: the batch stays in its
	// arena chunk, and its records would keep their chunk alive.
	*b = pbatch{}
	if len(p.pool.freeBatches) < freeBatchesMax {
		p.pool.freeBatches = append(p.pool.freeBatches, b)
	}
}

// debugRecycle makes every recycling check that nothing of the instance
// still refers to the object (tests turn it on).
var debugRecycle bool

// checkUnreferenced panics if batch b or request q (either may be nil) is
// still in a list of the instance.
func (p *Producer) checkUnreferenced(b *pbatch, q *prequest) {
	for _, ps := range p.parts {
		if b != nil && (slices.Contains(ps.queue, b) || slices.Contains(ps.live, b) || slices.Contains(ps.unacked, b)) {
			panic("model: a recycled batch is still in its partition's lists")
		}
		for _, u := range ps.unacked {
			if q != nil && u.req == q {
				panic("model: a recycled request still has a batch on the wire")
			}
		}
	}
	for _, c := range p.conns {
		for _, r := range c.inflight {
			if r == q || b != nil && slices.Contains(r.batches, b) {
				panic("model: a recycled object is still in flight")
			}
		}
	}
}
