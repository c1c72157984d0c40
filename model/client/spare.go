package client

import "github.com/idemsim/idemsim/model"

// listSpare keeps a reset partition state's list storage (queue, live,
// unacked) for its first appends.
type listSpare struct {
	queue, live, unacked []*pbatch
}

// grab returns list, or, when list is nil (as a new node's is) and spare
// holds storage, that storage emptied: the first append of a reset node
// reuses the previous run's array instead of growing a new one. The list
// reads the same either way; only its capacity differs.
func grab[T any](list []T, spare *[]T) []T {
	if list == nil && *spare != nil {
		list = (*spare)[:0]
		*spare = nil
	}
	return list
}

// keepLonger returns the larger of two lists' storage, emptied (its
// elements zeroed), to keep as a spare.
func keepLonger[T any](a, b []T) []T {
	if cap(b) > cap(a) {
		a = b
	}
	return model.Emptied(a)
}

// listKeep is the most batch slots a partition's list keeps for the next
// run once a run has ended (Producer.TrimLists).
const listKeep = 64

// TrimLists lets go, at a run's end, the storage of p's per-partition
// batch lists (and their spares) that grew past listKeep slots, and
// clears the slots of those it keeps: an emptied list's array still
// pointed at the run's batches, and through them at their record chunks,
// so a backlog's memory outlived the run (64 partitions held about 55
// bytes a record of crossbump's 100,000). The lists read the same
// afterwards; only capacities differ, which nothing observes. It also
// clears the stale effects (ClearSpare), seals the request and batch
// slabs' current chunks and drops the record stores' current chunks, the
// other holders of the run's records (docs/performance.md, "Memory per
// record").
func (p *Producer) TrimLists() {
	trim := func(l *[]*pbatch) {
		if cap(*l) > listKeep {
			if len(*l) == 0 {
				*l = nil
			}
			return
		}
		clear((*l)[len(*l):cap(*l)])
	}
	p.ClearSpare()
	// The slabs' and record stores' current chunks hold the run's last
	// requests and records; a new run starts new ones (or rewinds to
	// the kept first chunks) anyway.
	p.pool.reqSlab.Seal()
	p.pool.batchSlab.Seal()
	for i := range p.pool.recs {
		p.pool.recs[i].buf = nil
	}
	for _, ps := range p.parts {
		trim(&ps.queue)
		trim(&ps.live)
		trim(&ps.unacked)
		trim(&ps.sp.queue)
		trim(&ps.sp.live)
		trim(&ps.sp.unacked)
	}
}
