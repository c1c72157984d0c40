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
	out   []Out
	obs   []Obs
	notes []Batch
}

// effectStack holds a node's held effect buffers, newest last, and the
// spare ones the node takes when it gives its current ones away.
type effectStack struct {
	held []effectBufs
	// spare is emptied buffers for the node's next calls, and heldMem
	// the storage of a previous run's held stack, for its first hold:
	// allocator state, not state (held is nil until the first hold, in
	// a new node and a reset one alike).
	spare   []effectBufs
	heldMem []effectBufs
}

// heldBuf reports whether outs is cur, the buffer of the node's last
// call (the same elements; both empty counts as the same).
func heldBuf(outs, cur []Out) bool {
	return len(outs) == len(cur) && (len(outs) == 0 || &outs[0] == &cur[0])
}

// hold moves the current buffers *out, *obs and *notes (obs and notes may
// be nil: a node without them) onto the held stack and replaces them with
// spare ones.
func (s *effectStack) hold(out *[]Out, obs *[]Obs, notes *[]Batch) {
	b := effectBufs{out: *out}
	if obs != nil {
		b.obs = *obs
	}
	if notes != nil {
		b.notes = *notes
	}
	if s.held == nil && s.heldMem != nil {
		s.held, s.heldMem = s.heldMem, nil
	}
	s.held = append(s.held, b)
	var sp effectBufs
	if k := len(s.spare); k > 0 {
		sp = s.spare[k-1]
		s.spare[k-1] = effectBufs{}
		s.spare = s.spare[:k-1]
	}
	*out = sp.out
	if obs != nil {
		*obs = sp.obs
	}
	if notes != nil {
		*notes = sp.notes
	}
}

// release ends the newest hold: its buffers become spare, emptied, unless
// one grew past OutsKeptMax (a burst), which is let go instead.
func (s *effectStack) release() {
	k := len(s.held) - 1
	b := s.held[k]
	s.held[k] = effectBufs{}
	s.held = s.held[:k]
	if cap(b.out) > OutsKeptMax || cap(b.obs) > OutsKeptMax || cap(b.notes) > OutsKeptMax {
		return
	}
	// The elements stay until written over, as in a node's own buffers
	// between calls (clearing them cost more than it saved).
	s.spare = append(s.spare, effectBufs{out: b.out[:0], obs: b.obs[:0], notes: b.notes[:0]})
}

// reset empties the stack for a new run: nothing held; the spare buffers
// are kept, their elements zeroed (they point into the old run).
func (s *effectStack) reset() {
	for len(s.held) > 0 {
		s.release()
	}
	for i := range s.spare {
		b := &s.spare[i]
		clear(b.out[:cap(b.out)])
		clear(b.obs[:cap(b.obs)])
		clear(b.notes[:cap(b.notes)])
	}
	if s.held != nil {
		s.heldMem = s.held[:0]
	}
	s.held = nil
}

// HoldEffects holds outs in place ([EffectHolder]); a burst (more than
// [OutsKeptMax] effects, never written again) needs no hold.
func (p *Producer) HoldEffects(outs []Out) bool {
	if len(outs) > OutsKeptMax || !heldBuf(outs, p.out) {
		return false
	}
	p.held.hold(&p.out, nil, &p.pool.notes)
	return true
}

// ReleaseEffects ends the newest hold ([EffectHolder]).
func (p *Producer) ReleaseEffects() { p.held.release() }

// HoldEffects holds outs in place ([EffectHolder]).
func (b *Broker) HoldEffects(outs []Out) bool {
	if !heldBuf(outs, b.out) {
		return false
	}
	b.held.hold(&b.out, &b.obs.obs, nil)
	return true
}

// ReleaseEffects ends the newest hold ([EffectHolder]).
func (b *Broker) ReleaseEffects() { b.held.release() }

// HoldEffects holds outs in place ([EffectHolder]).
func (c *Coordinator) HoldEffects(outs []Out) bool {
	n := &c.node
	if !heldBuf(outs, n.out) {
		return false
	}
	n.held.hold(&n.out, &n.obs.obs, nil)
	return true
}

// ReleaseEffects ends the newest hold ([EffectHolder]).
func (c *Coordinator) ReleaseEffects() { c.node.held.release() }

// HoldEffects holds outs in place ([EffectHolder]).
func (g *GroupCoordinator) HoldEffects(outs []Out) bool {
	if !heldBuf(outs, g.out) {
		return false
	}
	g.held.hold(&g.out, &g.obs.obs, nil)
	return true
}

// ReleaseEffects ends the newest hold ([EffectHolder]).
func (g *GroupCoordinator) ReleaseEffects() { g.held.release() }

var (
	_ EffectHolder = (*Producer)(nil)
	_ EffectHolder = (*Broker)(nil)
	_ EffectHolder = (*Coordinator)(nil)
	_ EffectHolder = (*GroupCoordinator)(nil)
)
