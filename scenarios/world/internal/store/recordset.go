package store

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// RecordSet is a producer instance's unresolved records, by message
// number: those sent through it whose outcome it has not learned. The
// members are a window of an application's dense message numbers (sent in
// order, resolved mostly in order), so they are kept in one buffer from
// the smallest member to the largest, 16 bytes a slot: a record the world
// made (of the set's application, with its original digest,
// model.Digest(id, 0), and no create time) is its send time and
// partition; any other member is kept whole aside, in odd. (A map spent
// about 170 bytes per record and an allocation every few records; a
// whole record per slot, 49 bytes.) The window slides along the buffer
// and moves back to its start when it reaches the end, so a steady
// stream of records reuses one buffer. Absent slots are zero; the state
// hash walks only the members, made whole (statehash.go).
type RecordSet struct {
	// base is the message number of the window's first slot, off that
	// slot's index in the buffer, and size the window's length:
	// slots[off+i] holds message base+i when it is present.
	base      int64
	off, size int
	slots     []RecordSlot
	// app is the application of the members kept in their slots: the
	// first member's since the set was last empty.
	app int32
	// odd holds the members kept whole, by message number (their slots
	// say so); nil when there is none.
	odd map[int64]model.Record
	// n counts the members.
	n int
}

// RecordSlot is one slot of a [RecordSet]: a member's send time
// (simulated ns) and partition, or, with SlotOdd, a member kept whole.
type RecordSlot struct {
	Sent  sim.Time
	Part  int32
	Flags uint8
}

// Slot flags.
const (
	// SlotPresent: the slot holds a member.
	SlotPresent uint8 = 1 << iota
	// SlotOdd: the member is in RecordSet.odd.
	SlotOdd
)

// Len returns the number of members.
func (s *RecordSet) Len() int { return s.n }

// slot returns n's index in the buffer, or -1 outside the window.
func (s *RecordSet) slot(n int64) int {
	i := n - s.base
	if i < 0 || i >= int64(s.size) {
		return -1
	}
	return s.off + int(i)
}

// Member returns the member of application app numbered n that slot sl
// (present) holds, with odd the set's whole members: the state hash's
// way to a member (statehash.go).
func Member(app int32, n int64, sl RecordSlot, odd map[int64]model.Record) model.Record {
	if sl.Flags&SlotOdd != 0 {
		return odd[n]
	}
	id := model.RecordID{App: app, N: n}
	return model.Record{ID: id, Digest: model.Digest(id, 0), Partition: sl.Part, SentAt: sl.Sent}
}

// Get returns member n.
func (s *RecordSet) Get(n int64) (model.Record, bool) {
	if i := s.slot(n); i >= 0 && s.slots[i].Flags&SlotPresent != 0 {
		return Member(s.app, n, s.slots[i], s.odd), true
	}
	return model.Record{}, false
}

// Has reports whether n is a member.
func (s *RecordSet) Has(n int64) bool {
	i := s.slot(n)
	return i >= 0 && s.slots[i].Flags&SlotPresent != 0
}

// Put adds rec (or replaces the member with its message number).
func (s *RecordSet) Put(rec model.Record) {
	s.put(rec, rec.CreateTime == 0 && rec.Digest == model.Digest(rec.ID, 0))
}

// PutStandard is Put for a record its caller just made with the standard
// payload (digest model.Digest(id, 0), no create time): it skips
// recomputing the digest, on the path every new record takes.
func (s *RecordSet) PutStandard(rec model.Record) { s.put(rec, true) }

// put adds rec; std reports that its digest is the standard one and it
// has no create time, so a slot holds it.
func (s *RecordSet) put(rec model.Record, std bool) {
	n := rec.ID.N
	if s.n == 0 {
		s.base, s.off, s.size, s.app = n, 0, 0, rec.ID.App
	}
	switch {
	case n < s.base:
		// Below the window (a record handed over from an older
		// instance): the window grows at the front.
		s.Reserve(int(s.base-n), s.size+int(s.base-n))
		s.base = n
	case n-s.base >= int64(s.size):
		s.Reserve(0, int(n-s.base)+1)
	}
	i := s.slot(n)
	sl := &s.slots[i]
	if sl.Flags&SlotPresent == 0 {
		s.n++
	} else if sl.Flags&SlotOdd != 0 {
		delete(s.odd, n)
	}
	if rec.ID.App == s.app && std {
		*sl = RecordSlot{Sent: rec.SentAt, Part: rec.Partition, Flags: SlotPresent}
		return
	}
	if s.odd == nil {
		s.odd = make(map[int64]model.Record)
	}
	s.odd[n] = rec
	*sl = RecordSlot{Flags: SlotPresent | SlotOdd}
}

// Reserve makes the window size slots long, with front new slots before
// the old ones (new slots are absent). When it does not fit where it is,
// the window moves to the start of the buffer, or to a new one when it
// would fill more than half of it (so that moves stay rare: a window
// that slides along the buffer moves once per half buffer). Every slot
// outside the window is zero.
func (s *RecordSet) Reserve(front, size int) {
	if front == 0 && s.off+size <= len(s.slots) {
		s.size = size
		return
	}
	old := s.size
	if 2*size > len(s.slots) {
		slots := make([]RecordSlot, max(4*size, 8))
		copy(slots[front:], s.slots[s.off:s.off+old])
		s.slots = slots
	} else {
		copy(s.slots[front:], s.slots[s.off:s.off+old]) // overlapping: a memmove
		// What the move left behind: the old window's slots outside the
		// new one's moved part, and the new front slots.
		clear(s.slots[:front])
		if lo := max(front+old, s.off); lo < s.off+old {
			clear(s.slots[lo : s.off+old])
		}
	}
	s.off, s.size = 0, size
}

// Delete removes member n, if present.
func (s *RecordSet) Delete(n int64) {
	i := s.slot(n)
	if i < 0 || s.slots[i].Flags&SlotPresent == 0 {
		return
	}
	if s.slots[i].Flags&SlotOdd != 0 {
		delete(s.odd, n)
	}
	s.slots[i] = RecordSlot{}
	s.n--
	if s.n == 0 {
		s.base, s.off, s.size, s.app = 0, 0, 0, 0
		if len(s.slots) > maxKeptSlots {
			// A backlog drained: do not hold its buffer for the rest
			// of the run.
			s.slots = nil
		}
		return
	}
	// Keep the window tight: drop absent slots at both ends.
	for s.slots[s.off].Flags&SlotPresent == 0 {
		s.off++
		s.size--
		s.base++
	}
	for s.slots[s.off+s.size-1].Flags&SlotPresent == 0 {
		s.size--
	}
}

// maxKeptSlots is the largest buffer, in slots, an emptied set keeps.
const maxKeptSlots = 4096

// Clear removes every member, keeping the storage.
func (s *RecordSet) Clear() {
	clear(s.slots[s.off : s.off+s.size])
	clear(s.odd)
	s.base, s.off, s.size, s.n, s.app = 0, 0, 0, 0, 0
}

// Each calls f for every member, in increasing message number.
func (s *RecordSet) Each(f func(rec model.Record)) {
	for i := s.off; i < s.off+s.size; i++ {
		if sl := s.slots[i]; sl.Flags&SlotPresent != 0 {
			f(Member(s.app, s.base+int64(i-s.off), sl, s.odd))
		}
	}
}
