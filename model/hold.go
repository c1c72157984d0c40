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

// OutsKeptMax is the largest effect buffer, in effects, a producer reuses:
// the effects a call returns are valid until the next call, except that
// a slice of more than OutsKeptMax effects is never written again, so the
// caller may keep it (the world then carries out a burst without copying
// it).
const OutsKeptMax = 1024

// EffectHolder is a node whose effects the world can hold in place.
type EffectHolder interface {
	// HoldEffects holds outs, the effects the node's last call
	// returned, and reports whether it did: false when outs are not
	// that call's buffer (the caller copies them instead). Until the
	// matching ReleaseEffects, nothing outs points to changes.
	HoldEffects(outs []Out) bool
	// ReleaseEffects ends the newest hold.
	ReleaseEffects()
	// ClearSpare zeroes the stale elements the node's buffers keep past
	// their lengths and in their spare depths (EffectStack.ClearSpare),
	// at a run's end: they point into the run's messages and records.
	ClearSpare()
}

// EffectBufs are the buffers of one call's effects.
type EffectBufs struct {
	out     []Out
	obs     []Obs
	Notes   []Batch
	IDs     []RecordID
	Results []Outcome
	Txns    []TxnResult
}

// EffectStack holds a node's held effect buffers: bufs[:depth] are held,
// the newest last; bufs[depth:] are spare storage. A hold swaps the node's
// current buffers with the spare ones at depth, so that each depth keeps
// its storage from call to call, and a release is a count.
type EffectStack struct {
	depth int
	// bufs[depth:] are allocator state, not state.
	bufs []EffectBufs
}

// HeldBuf reports whether outs is cur, the buffer of the node's last
// call (the same elements; both empty counts as the same).
func HeldBuf(outs, cur []Out) bool {
	return len(outs) == len(cur) && (len(outs) == 0 || &outs[0] == &cur[0])
}

// Hold moves the current effect buffer *out onto the held stack, replaces
// it with the spare one of that depth, emptied, and returns the depth's
// buffers: the caller swaps its other buffers (observations, notes, ids)
// with theirs.
func (s *EffectStack) Hold(out *[]Out) *EffectBufs {
	if s.depth == len(s.bufs) {
		s.bufs = append(s.bufs, EffectBufs{})
	}
	b := &s.bufs[s.depth]
	s.depth++
	b.out, *out = *out, b.out[:0]
	return b
}

// Release ends the newest hold: its buffers become that depth's spare
// storage, their elements kept until written over (as in a node's own
// buffers between calls), unless one grew past OutsKeptMax (a burst),
// which is let go instead. A transaction result carries all of its
// records' ids, so their buffer is let go only past 64 times that.
func (s *EffectStack) Release() {
	s.depth--
	if b := &s.bufs[s.depth]; cap(b.out) > OutsKeptMax || cap(b.obs) > OutsKeptMax || cap(b.Notes) > OutsKeptMax || cap(b.IDs) > 64*OutsKeptMax ||
		cap(b.Results) > OutsKeptMax || cap(b.Txns) > OutsKeptMax {
		*b = EffectBufs{}
	}
}

// Depth returns the number of holds not yet released.
func (s *EffectStack) Depth() int { return s.depth }

// Levels returns the number of depths that have buffers, held or spare.
func (s *EffectStack) Levels() int { return len(s.bufs) }

// ClearSpare zeroes what no hold uses: the whole storage of the spare
// depths (bufs[depth:]) and the elements past the length of the held
// ones. Those elements are stale (a spare buffer keeps them until they
// are written over), but they point into the run: effects to its
// messages, notes to its batches and records, so a buffer that kept them
// past the run's end kept the run's request and record chunks alive. A
// run's end calls it (Producer.TrimLists); nothing reads the elements it
// clears.
func (s *EffectStack) ClearSpare() {
	for i := range s.bufs {
		b := &s.bufs[i]
		if i >= s.depth {
			*b = EffectBufs{out: b.out[:0], obs: b.obs[:0], Notes: b.Notes[:0], IDs: b.IDs[:0], Results: b.Results[:0], Txns: b.Txns[:0]}
		}
		ClearTail(b.out)
		ClearTail(b.obs)
		ClearTail(b.Notes)
		ClearTail(b.IDs)
		ClearTail(b.Results)
		ClearTail(b.Txns)
	}
}

// ClearTail zeroes l's elements between its length and its capacity.
func ClearTail[T any](l []T) { clear(l[len(l):cap(l)]) }

// Reset empties the stack for a new run: nothing held; the buffers keep
// their storage, their elements zeroed (they point into the old run).
func (s *EffectStack) Reset() {
	s.depth = 0
	for i := range s.bufs {
		b := &s.bufs[i]
		clear(b.out[:cap(b.out)])
		clear(b.obs[:cap(b.obs)])
		clear(b.Notes[:cap(b.Notes)])
		clear(b.IDs[:cap(b.IDs)])
		clear(b.Results[:cap(b.Results)])
		clear(b.Txns[:cap(b.Txns)])
	}
}
