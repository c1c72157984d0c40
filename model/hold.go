package model

// Holding effects in place.
//
// A node's effects (the []Out a call returns, the observations and the
// expired batches they point to) live in the node's buffers until its
// next call, which reuses them. The world carries out a call's effects
// one by one, and carrying one out may call the same node again (a
// producer's NotePID starts its sends; a server's instant answer to
// another server): the later call would write over the effects not yet
// carried out. So the world either copies a call's effects before
// carrying them out, or holds them in place: HoldEffects moves the
// node's current buffers aside, untouched, and gives the node spare ones
// for its next calls; ReleaseEffects, once the effects are carried out,
// returns them for reuse. Holds nest (a hold per call being carried out)
// and are released in reverse order; etcd raft's Ready and Advance are
// the same handshake.

// EffectHolder is a node whose effects the world can hold in place.
type EffectHolder interface {
	// HoldEffects holds outs, the effects the node's last call
	// returned, and reports whether it did: false when outs are not
	// that call's buffer (the caller copies them instead). Until the
	// matching ReleaseEffects, nothing outs points to changes.
	HoldEffects(outs []Out) bool
	// ReleaseEffects ends the newest hold.
	ReleaseEffects()
}

// effectBufs are the buffers of one call's effects.
type effectBufs struct {
	out     []Out
	obs     []Obs
	notes   []Batch
	ids     []RecordID
	results []Outcome
	txns    []TxnResult
}

// effectStack holds a node's held effect buffers: bufs[:depth] are held,
// the newest last; bufs[depth:] are spare storage. A hold swaps the node's
// current buffers with the spare ones at depth, so that each depth keeps
// its storage from call to call, and a release is a count.
type effectStack struct {
	depth int
	// bufs[depth:] are allocator state, not state.
	bufs []effectBufs
}

// heldBuf reports whether outs is cur, the buffer of the node's last
// call (the same elements; both empty counts as the same).
func heldBuf(outs, cur []Out) bool {
	return len(outs) == len(cur) && (len(outs) == 0 || &outs[0] == &cur[0])
}

// hold moves the current effect buffer *out onto the held stack, replaces
// it with the spare one of that depth, emptied, and returns the depth's
// buffers: the caller swaps its other buffers (observations, notes, ids)
// with theirs.
func (s *effectStack) hold(out *[]Out) *effectBufs {
	if s.depth == len(s.bufs) {
		s.bufs = append(s.bufs, effectBufs{})
	}
	b := &s.bufs[s.depth]
	s.depth++
	b.out, *out = *out, b.out[:0]
	return b
}

// release ends the newest hold: its buffers become that depth's spare
// storage, their elements kept until written over (as in a node's own
// buffers between calls), unless one grew past OutsKeptMax (a burst),
// which is let go instead. A transaction result carries all of its
// records' ids, so their buffer is let go only past 64 times that.
func (s *effectStack) release() {
	s.depth--
	if b := &s.bufs[s.depth]; cap(b.out) > OutsKeptMax || cap(b.obs) > OutsKeptMax || cap(b.notes) > OutsKeptMax || cap(b.ids) > 64*OutsKeptMax ||
		cap(b.results) > OutsKeptMax || cap(b.txns) > OutsKeptMax {
		*b = effectBufs{}
	}
}

// reset empties the stack for a new run: nothing held; the buffers keep
// their storage, their elements zeroed (they point into the old run).
func (s *effectStack) reset() {
	s.depth = 0
	for i := range s.bufs {
		b := &s.bufs[i]
		clear(b.out[:cap(b.out)])
		clear(b.obs[:cap(b.obs)])
		clear(b.notes[:cap(b.notes)])
		clear(b.ids[:cap(b.ids)])
		clear(b.results[:cap(b.results)])
		clear(b.txns[:cap(b.txns)])
	}
}

// HoldEffects holds outs in place ([EffectHolder]); a burst (more than
// [OutsKeptMax] effects, never written again) needs no hold.
func (p *Producer) HoldEffects(outs []Out) bool {
	if len(outs) > OutsKeptMax || !heldBuf(outs, p.out) {
		return false
	}
	b := p.held.hold(&p.out)
	b.notes, p.pool.notes = p.pool.notes, b.notes[:0]
	b.ids, p.pool.txnIDs = p.pool.txnIDs, b.ids[:0]
	b.results, p.pool.results = p.pool.results, b.results[:0]
	b.txns, p.pool.txns = p.pool.txns, b.txns[:0]
	return true
}

// ReleaseEffects ends the newest hold ([EffectHolder]).
func (p *Producer) ReleaseEffects() { p.held.release() }

// HoldEffects holds outs in place ([EffectHolder]).
func (b *Broker) HoldEffects(outs []Out) bool { return b.holdEffects(outs) }

// ReleaseEffects ends the newest hold ([EffectHolder]).
func (b *Broker) ReleaseEffects() { b.held.release() }

// HoldEffects holds outs in place ([EffectHolder]).
func (c *Coordinator) HoldEffects(outs []Out) bool { return c.node.holdEffects(outs) }

// ReleaseEffects ends the newest hold ([EffectHolder]).
func (c *Coordinator) ReleaseEffects() { c.node.held.release() }

// HoldEffects holds outs in place ([EffectHolder]).
func (g *GroupCoordinator) HoldEffects(outs []Out) bool { return g.holdEffects(outs) }

// ReleaseEffects ends the newest hold ([EffectHolder]).
func (g *GroupCoordinator) ReleaseEffects() { g.held.release() }

// serverBufs are a server's effect buffers: its call's effects and
// observations, the effects the world holds, and the pool its messages
// are carved from.
type serverBufs struct {
	out []Out
	obs obsSlab
	// held are the effect buffers the world holds in place.
	held effectStack
	// msgs carves the node's messages (msgpool.go).
	msgs *msgPool
}

// holdEffects holds outs, the buffers' last call's effects, in place.
func (s *serverBufs) holdEffects(outs []Out) bool {
	if !heldBuf(outs, s.out) {
		return false
	}
	h := s.held.hold(&s.out)
	h.obs, s.obs.obs = s.obs.obs, h.obs[:0]
	return true
}

// reset empties the buffers for a new run, keeping their memory (and
// the pool's slabs, when reclaimed: msgs.reclaim), as a new node's.
func (s *serverBufs) reset() {
	s.obs.drop()
	s.held.reset()
	resetPool(&s.msgs)
	s.out = emptiedNonNil(s.out)
}

var (
	_ EffectHolder = (*Producer)(nil)
	_ EffectHolder = (*Broker)(nil)
	_ EffectHolder = (*Coordinator)(nil)
	_ EffectHolder = (*GroupCoordinator)(nil)
)
