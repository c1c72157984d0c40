package store

import (
	"cmp"
	"slices"
)

// IDTable holds values by id for ids handed out in increasing order (a
// message number, a reply handle) and freed in any order: the messages on
// the wire, the requests servers are handling. It is a window of slots
// from the oldest live id on, so that a put, a get and a delete are an
// index, without a map's hashing (and without the reseeding of a map that
// empties, which calls the runtime's random source).
//
// An entry that stays while many later ones come and go (a message held
// by a paused server, or scheduled past the run's horizon and never
// delivered) would stretch the window: once the window spans more than
// spillSpan slots and four times its live entries, its oldest entries
// move to a map, so memory stays proportional to the live entries.
//
// The zero IDTable is empty and ready; ids start at 1 or above.
type IDTable[T any] struct {
	// slots[head:] hold ids base, base+1, ...
	slots []idSlot[T]
	head  int
	base  uint64
	// n counts the live slots.
	n int
	// spill holds live entries older than base.
	spill map[uint64]T
}

type idSlot[T any] struct {
	v    T
	live bool
}

// spillSpan is the window span, in slots, below which nothing spills.
const spillSpan = 256

// put stores v under id, which is not live.
func (t *IDTable[T]) Put(id uint64, v T) {
	if t.n == 0 && id >= t.base {
		// An empty window starts at id (every spilled id is below
		// the old base, so below id); its slots were zeroed as they
		// were freed.
		t.slots, t.head, t.base = t.slots[:0], 0, id
	}
	if id < t.base {
		if t.spill == nil {
			t.spill = make(map[uint64]T)
		}
		t.spill[id] = v
		return
	}
	i := t.head + int(id-t.base)
	if i == len(t.slots) {
		t.slots = append(t.slots, idSlot[T]{v: v, live: true}) // the usual case: the newest id
	} else {
		for len(t.slots) <= i {
			t.slots = append(t.slots, idSlot[T]{})
		}
		t.slots[i] = idSlot[T]{v: v, live: true}
	}
	t.n++
	if span := len(t.slots) - t.head; span > spillSpan && span > 4*t.n {
		t.spillOld()
	}
}

// spillOld moves the window's oldest entries to the spill map until it
// spans at most twice its live entries.
func (t *IDTable[T]) spillOld() {
	if t.spill == nil {
		t.spill = make(map[uint64]T)
	}
	for len(t.slots)-t.head > 2*t.n && t.n > 0 {
		if s := &t.slots[t.head]; s.live {
			t.spill[t.base] = s.v
			t.n--
		}
		t.slots[t.head] = idSlot[T]{}
		t.head++
		t.base++
	}
	t.Trim()
}

// slot returns id's live slot in the window, or nil.
func (t *IDTable[T]) slot(id uint64) *idSlot[T] {
	if id < t.base {
		return nil
	}
	i := t.head + int(id-t.base)
	if i >= len(t.slots) || !t.slots[i].live {
		return nil
	}
	return &t.slots[i]
}

// get returns id's value and whether it is live.
func (t *IDTable[T]) Get(id uint64) (T, bool) {
	if s := t.slot(id); s != nil {
		return s.v, true
	}
	v, ok := t.spill[id]
	return v, ok
}

// set replaces live id's value.
func (t *IDTable[T]) Set(id uint64, v T) {
	if s := t.slot(id); s != nil {
		s.v = v
		return
	}
	t.spill[id] = v
}

// del frees id (nothing when it is not live).
func (t *IDTable[T]) Del(id uint64) {
	s := t.slot(id)
	if s == nil {
		delete(t.spill, id)
		return
	}
	*s = idSlot[T]{}
	t.n--
	t.Trim()
}

// trim moves the window's start past its freed slots, and its slots back
// to the front of their storage once half of it lies before them.
func (t *IDTable[T]) Trim() {
	for t.head < len(t.slots) && !t.slots[t.head].live {
		t.head++
		t.base++
	}
	if t.head == len(t.slots) {
		t.slots, t.head = t.slots[:0], 0
		return
	}
	if t.head > len(t.slots)/2 {
		n := copy(t.slots, t.slots[t.head:])
		clear(t.slots[n:])
		t.slots, t.head = t.slots[:n], 0
	}
}

// len returns the number of live entries.
func (t *IDTable[T]) Len() int { return t.n + len(t.spill) }

// ids appends the live ids to ids, in increasing order.
func (t *IDTable[T]) IDs(ids []uint64) []uint64 {
	from := len(ids)
	for id := range t.spill {
		ids = append(ids, id)
	}
	slices.SortFunc(ids[from:], cmp.Compare[uint64])
	for i := t.head; i < len(t.slots); i++ {
		if t.slots[i].live {
			ids = append(ids, t.base+uint64(i-t.head))
		}
	}
	return ids
}

// reset empties the table, keeping its window's storage (its slots
// zeroed, so that it keeps nothing alive).
func (t *IDTable[T]) Reset() {
	clear(t.slots[:cap(t.slots)])
	clear(t.spill)
	*t = IDTable[T]{slots: t.slots[:0], spill: t.spill}
}
