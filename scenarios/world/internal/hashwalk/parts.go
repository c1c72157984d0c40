package hashwalk

import (
	"fmt"
	"slices"
)

// Parts is a state hash kept part by part, so that a part the state did
// not change since the last hash is not walked again: the caller splits
// its state into parts (a node's state, the checkers' ...), marks a part
// [Parts.Dirty] whenever it may have changed, and calls [Parts.Walk] for
// every part, in a fixed order, at each hash; [Parts.Sum] combines the
// parts' digests.
//
// Each part is walked on its own: its pointers are numbered from the
// part's start, so a part's digest does not depend on what was walked
// before it. That keeps the hash sound (equal hashes, equal states) only
// if no two parts reach the same pointer, which the walk would otherwise
// number as shared: a pointer from one part into another is an [Ident]
// (hashed by its pointee's place in the state), and [Parts.Shared], in a
// check, lists the pointers two parts reach.
//
// Reply-route handles are numbered by their rank among all the handles
// the parts met (Sum), not in the order met: a numbering that depends on
// the state alone. A part's digest holds a mark where it meets a handle
// and the part lists the handles in order, so that the rank, which other
// parts' handles can change, is added at Sum, without walking the part.
type Parts struct {
	parts []part
	// all is Sum's scratch: every handle met.
	all []uint64
	// check: record each part's pointers (owner) and list the pointers
	// two parts reach (shared).
	check  bool
	owner  map[ptrOther]int
	shared []string
}

type part struct {
	sum [2]uint64
	met []uint64
	ok  bool
}

// NewParts returns the parts of a state, none walked yet; check makes
// [Parts.Shared] list the pointers two parts reach (a test's: it costs a
// map entry per pointer).
func NewParts(check bool) *Parts {
	p := &Parts{check: check}
	if check {
		p.owner = map[ptrOther]int{}
	}
	return p
}

// Dirty marks part i to be walked again at the next hash (a part not yet
// known is walked anyway).
func (p *Parts) Dirty(i int) {
	if i < len(p.parts) {
		p.parts[i].ok = false
	}
}

// DirtyAll marks every part to be walked again at the next hash.
func (p *Parts) DirtyAll() {
	for i := range p.parts {
		p.parts[i].ok = false
	}
}

// Walk brings part i up to date: unless it is known and not dirty, or
// always is set, walk walks it in a walk of its own, in c, whose special
// walks see ctx.
func (p *Parts) Walk(c *Cache, ctx any, i int, always bool, walk func(h *Hasher)) {
	for len(p.parts) <= i {
		p.parts = append(p.parts, part{})
	}
	pt := &p.parts[i]
	if pt.ok && !always {
		return
	}
	h := c.Begin(ctx)
	h.part, h.met = true, pt.met[:0]
	walk(h)
	pt.sum, pt.met, pt.ok = h.Sum(), h.met, true
	if !p.check {
		return
	}
	for a, s := range h.ptrs {
		p.own(c, ptrOther{a, s.t}, i)
	}
	for k := range c.others {
		p.own(c, k, i)
	}
}

// own records that part i reaches pointer k.
func (p *Parts) own(c *Cache, k ptrOther, i int) {
	if c.opts.Values != nil && c.opts.Values(k.t) {
		return
	}
	if j, ok := p.owner[k]; ok && j != i {
		p.shared = append(p.shared, fmt.Sprintf("parts %d and %d both reach a %s", j, i, k.t))
		return
	}
	p.owner[k] = i
}

// Shared lists the pointers two parts reach, in a check (NewParts).
func (p *Parts) Shared() []string { return p.shared }

// Sum returns the hash of the first n parts, in order: each part's digest,
// then its handles by their rank (from 1) among all the handles met.
func (p *Parts) Sum(n int) [2]uint64 {
	all := p.all[:0]
	for _, pt := range p.parts[:n] {
		all = append(all, pt.met...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	p.all = all
	var h Hasher
	for _, pt := range p.parts[:n] {
		h.U64(pt.sum[0])
		h.U64(pt.sum[1])
		h.U64(uint64(len(pt.met)))
		for _, x := range pt.met {
			r, _ := slices.BinarySearch(all, x)
			h.U64(uint64(r) + 1)
		}
	}
	return h.Sum()
}

// Diff lists the parts whose digests or handles differ between p and q.
func (p *Parts) Diff(q *Parts) []int {
	var d []int
	for i := range min(len(p.parts), len(q.parts)) {
		if a, b := p.parts[i], q.parts[i]; a.sum != b.sum || !slices.Equal(a.met, b.met) {
			d = append(d, i)
		}
	}
	return d
}
