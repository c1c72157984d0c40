package sim

import (
	"math/bits"
	"slices"
)

// PendingSum is a digest of pending events in their order, kept as the
// queue changes without a pass over every event: the state hash of an
// explorer takes it at each choice point, where a replicated world holds
// hundreds of pending events of which a few changed since the last one.
//
// The events of one time form a group, in their order (by scheduling
// sequence): a pop takes the first event of the earliest group, a push
// puts an event last in its group (it has the greatest sequence number).
// A group's digest is a polynomial in its events' digests by rank,
// Σ d_k·r^k modulo the prime 2^61-1 in each of two lanes (r a constant of
// each lane): a push adds d·r^n, a pop of the first event subtracts d_0
// and divides by r, so that the ranks stay 0, 1, ... without touching the
// group's other events. The groups are combined, each mixed with its time
// and length, by a sum modulo 2^64 (lanes apart), which does not depend
// on the order the groups changed in. Two sequences of events that differ
// (in an event's digest, its time, or the order within a time) give
// different digests but with a probability of about n/2^61 a lane for
// groups of n events, and 2^-64 a lane for the sum.
//
// The zero value is the digest of no events.
type PendingSum struct {
	// groups are the groups by time.
	groups []sumGroup
	sum    [2]uint64
}

// sumGroup is the events of one time: n of them, g the polynomial of
// their digests by rank, rn = r^n (each lane).
type sumGroup struct {
	at    Time
	n     uint64
	g, rn [2]uint64
}

// modP is the prime 2^61-1 of the groups' polynomials.
const modP = 1<<61 - 1

// sumR are the lanes' bases r (below modP), sumRInv their inverses.
var (
	sumR    = [2]uint64{0x0ad3f8c9b6e1a2f7 & modP, 0x13c6a1f5e08d4b39 & modP}
	sumRInv = [2]uint64{powMod(sumR[0], modP-2), powMod(sumR[1], modP-2)}
)

// mulMod returns a·b mod modP, for a, b < modP.
func mulMod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	r := lo&modP + (lo>>61 | hi<<3)
	if r >= modP {
		r -= modP
	}
	return r
}

// powMod returns a^e mod modP.
func powMod(a, e uint64) uint64 {
	r := uint64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = mulMod(r, a)
		}
		a = mulMod(a, a)
	}
	return r
}

// reduce returns x mod modP.
func reduce(x uint64) uint64 {
	r := x&modP + x>>61
	if r >= modP {
		r -= modP
	}
	return r
}

// fmix is a 64-bit finaliser (SplitMix64's).
func fmix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// mix is a group's share of the sum: its time, its length and both
// lanes' polynomials in each lane.
func (g *sumGroup) mix() [2]uint64 {
	t, n := uint64(g.at), g.n
	return [2]uint64{
		fmix(fmix(g.g[0]+t*0x9e3779b97f4a7c15) ^ g.g[1] + n*0xc2b2ae3d27d4eb4f),
		fmix(fmix(g.g[1]^t*0x165667b19e3779f9) + g.g[0]*0x27d4eb2f165667c5 + n),
	}
}

// group returns the index of at's group, adding an empty one if needed.
func (s *PendingSum) group(at Time) int {
	i, ok := slices.BinarySearchFunc(s.groups, at, func(g sumGroup, at Time) int {
		switch {
		case g.at < at:
			return -1
		case g.at > at:
			return 1
		}
		return 0
	})
	if !ok {
		s.groups = slices.Insert(s.groups, i, sumGroup{at: at, rn: [2]uint64{1, 1}})
	}
	return i
}

// update replaces group i's share of the sum by what change makes it,
// dropping the group once empty.
func (s *PendingSum) update(i int, change func(g *sumGroup)) {
	g := &s.groups[i]
	if g.n > 0 {
		m := g.mix()
		s.sum[0] -= m[0]
		s.sum[1] -= m[1]
	}
	change(g)
	if g.n == 0 {
		s.groups = slices.Delete(s.groups, i, i+1)
		return
	}
	m := g.mix()
	s.sum[0] += m[0]
	s.sum[1] += m[1]
}

// Add adds an event of digest d at time at, after every event of that
// time already added: adding the events in the order they will run
// gives the digest of that order.
func (s *PendingSum) Add(at Time, d [2]uint64) {
	s.update(s.group(at), func(g *sumGroup) {
		for l := range 2 {
			g.g[l] = reduce(g.g[l] + mulMod(reduce(d[l]), g.rn[l]))
			g.rn[l] = mulMod(g.rn[l], sumR[l])
		}
		g.n++
	})
}

// popFirst removes the first event of at's group, of digest d (it must
// be that group's first).
func (s *PendingSum) popFirst(at Time, d [2]uint64) {
	s.update(s.group(at), func(g *sumGroup) {
		for l := range 2 {
			g.g[l] = mulMod(reduce(g.g[l]+modP-reduce(d[l])), sumRInv[l])
			g.rn[l] = mulMod(g.rn[l], sumRInv[l])
		}
		g.n--
	})
}

// Sum returns the digest of the events added and not removed.
func (s *PendingSum) Sum() [2]uint64 { return s.sum }

// reset empties s, keeping its storage.
func (s *PendingSum) reset() { s.groups, s.sum = s.groups[:0], [2]uint64{} }

// SumPending returns the [PendingSum] of the pending events in the order
// the loop will run them, each event's digest its memo's Sum, kept from
// one call to the next: an event pushed since the last call is added
// (fill fills its memo first), an event popped since is removed, and the
// other events are not visited. A memo that fill marks Every is visited
// again at every call: each is called for every such event, in the
// order the loop will run them (the caller hashes what may change while
// the event is pending). Like [Loop.EachPendingMemo], the memo depends
// only on the event and its time; a change other than a push or a pop
// (a shift, an Edit, a trim, a reset, AtBefore, Requeue) or a call of
// EachPendingMemo fills every memo again. fill and each must not
// schedule.
func (l *Loop[E]) SumPending(fill, each func(at Time, ev *E, bg bool, m *Memo)) [2]uint64 {
	l.sortPending()
	if !l.sumOK || l.unfilled > 0 {
		if !l.sumOK {
			l.psum.reset()
			l.every = 0
		}
		for i := range l.sorted {
			mk := &l.sorted[i]
			if l.sumOK && mk.memo.OK {
				continue
			}
			if !mk.memo.OK {
				fill(mk.at, &l.q.evs[mk.slot], mk.seq&1 == 1, &mk.memo)
				mk.memo.OK = true
			}
			l.psum.Add(mk.at, mk.memo.Sum)
			if mk.memo.Every {
				l.every++
			}
		}
		l.sumOK, l.unfilled = true, 0
	}
	if l.every > 0 {
		for i := range l.sorted {
			if mk := &l.sorted[i]; mk.memo.Every {
				each(mk.at, &l.q.evs[mk.slot], mk.seq&1 == 1, &mk.memo)
			}
		}
	}
	return l.psum.Sum()
}

// sumPopped removes the memos of events popped since the last call
// (sortPending) from the kept sum.
func (l *Loop[E]) sumPopped(popped []memoKey) {
	if !l.sumOK {
		return
	}
	for i := range popped {
		mk := &popped[i]
		if !mk.memo.OK {
			l.unfilled--
			continue
		}
		l.psum.popFirst(mk.at, mk.memo.Sum)
		if mk.memo.Every {
			l.every--
		}
	}
}
