package store

import "github.com/idemsim/idemsim/model"

// RecordSet is a producer instance's unresolved records, by message
// number: those sent through it whose outcome it has not learned. The
// members are a window of an application's dense message numbers (sent in
// order, resolved mostly in order), so they are kept in one buffer from
// the smallest member to the largest, a record (48 bytes) and a presence
// byte per slot, where a map spent about 170 bytes per record and an
// allocation every few records. The window slides along the buffer and
// moves back to its start when it reaches the end, so a steady stream of
// records reuses one buffer. Absent slots are zero; the state hash walks
// only the members (statehash.go).
type RecordSet struct {
	// base is the message number of the window's first slot, off that
	// slot's index in the buffers, and size the window's length:
	// recs[off+i] holds message base+i when present[off+i].
	base      int64
	off, size int
	recs      []model.Record
	present   []bool
	// n counts the members.
	n int
}

// len returns the number of members.
func (s *RecordSet) Len() int { return s.n }

// slot returns n's index in the buffers, or -1 outside the window.
func (s *RecordSet) slot(n int64) int {
	i := n - s.base
	if i < 0 || i >= int64(s.size) {
		return -1
	}
	return s.off + int(i)
}

// get returns member n.
func (s *RecordSet) Get(n int64) (model.Record, bool) {
	if i := s.slot(n); i >= 0 && s.present[i] {
		return s.recs[i], true
	}
	return model.Record{}, false
}

// has reports whether n is a member.
func (s *RecordSet) Has(n int64) bool {
	_, ok := s.Get(n)
	return ok
}

// put adds rec (or replaces the member with its message number).
func (s *RecordSet) Put(rec model.Record) {
	n := rec.ID.N
	if s.n == 0 {
		s.base, s.off, s.size = n, 0, 0
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
	if !s.present[i] {
		s.n++
	}
	s.recs[i], s.present[i] = rec, true
}

// reserve makes the window size slots long, with front new slots before
// the old ones (new slots are absent). When it does not fit where it is,
// the window moves to the start of the buffers, or to new ones when it
// would fill more than half of them (so that moves stay rare: a window
// that slides along the buffer moves once per half buffer). Every slot
// outside the window is zero.
func (s *RecordSet) Reserve(front, size int) {
	if front == 0 && s.off+size <= len(s.recs) {
		s.size = size
		return
	}
	old := s.size
	if 2*size > len(s.recs) {
		recs := make([]model.Record, max(4*size, 8))
		present := make([]bool, len(recs))
		copy(recs[front:], s.recs[s.off:s.off+old])
		copy(present[front:], s.present[s.off:s.off+old])
		s.recs, s.present = recs, present
	} else {
		copy(s.recs[front:], s.recs[s.off:s.off+old]) // overlapping: a memmove
		copy(s.present[front:], s.present[s.off:s.off+old])
		// What the move left behind: the old window's slots outside the
		// new one's moved part, and the new front slots.
		clear(s.recs[:front])
		clear(s.present[:front])
		if lo := max(front+old, s.off); lo < s.off+old {
			clear(s.recs[lo : s.off+old])
			clear(s.present[lo : s.off+old])
		}
	}
	s.off, s.size = 0, size
}

// delete removes member n, if present.
func (s *RecordSet) Delete(n int64) {
	i := s.slot(n)
	if i < 0 || !s.present[i] {
		return
	}
	s.recs[i], s.present[i] = model.Record{}, false
	s.n--
	if s.n == 0 {
		s.base, s.off, s.size = 0, 0, 0
		if len(s.recs) > maxKeptRecs {
			// A backlog drained: do not hold its buffer for the rest
			// of the run.
			s.recs, s.present = nil, nil
		}
		return
	}
	// Keep the window tight: drop absent slots at both ends.
	for !s.present[s.off] {
		s.off++
		s.size--
		s.base++
	}
	for !s.present[s.off+s.size-1] {
		s.size--
	}
}

// maxKeptRecs is the largest buffer, in slots, an emptied set keeps.
const maxKeptRecs = 4096

// clear removes every member, keeping the storage.
func (s *RecordSet) Clear() {
	clear(s.recs[s.off : s.off+s.size])
	clear(s.present[s.off : s.off+s.size])
	s.base, s.off, s.size, s.n = 0, 0, 0, 0
}

// each calls f for every member, in increasing message number.
func (s *RecordSet) Each(f func(rec model.Record)) {
	for i := s.off; i < s.off+s.size; i++ {
		if s.present[i] {
			f(s.recs[i])
		}
	}
}
