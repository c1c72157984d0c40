package scenarios

import "github.com/idemsim/idemsim/model"

// recordSet is a producer instance's unresolved records, by message
// number: those sent through it whose outcome it has not learned. The
// members are a window of an application's dense message numbers (sent in
// order, resolved mostly in order), so they are kept in one slice from
// the smallest member to the largest, a record (48 bytes) and a presence
// byte per slot, where a map spent about 170 bytes per record and an
// allocation every few records. The form is canonical: the window starts
// at the smallest member and ends at the largest, and absent slots are
// zero, so equal sets are equal values; the state hash walks only the
// members (statehash.go).
type recordSet struct {
	// base is the message number of slot 0; recs[i] holds message base+i
	// when present[i].
	base    int64
	recs    []model.Record
	present []bool
	// n counts the members.
	n int
}

// len returns the number of members.
func (s *recordSet) len() int { return s.n }

// get returns member n.
func (s *recordSet) get(n int64) (model.Record, bool) {
	i := n - s.base
	if i < 0 || i >= int64(len(s.recs)) || !s.present[i] {
		return model.Record{}, false
	}
	return s.recs[i], true
}

// has reports whether n is a member.
func (s *recordSet) has(n int64) bool {
	_, ok := s.get(n)
	return ok
}

// put adds rec (or replaces the member with its message number).
func (s *recordSet) put(rec model.Record) {
	n := rec.ID.N
	switch {
	case s.n == 0:
		s.base = n
		s.recs, s.present = append(s.recs[:0], rec), append(s.present[:0], true)
		s.n = 1
		return
	case n < s.base:
		// Below the window (a record handed over from an older
		// instance): open slots at the front.
		k := int(s.base - n)
		s.recs = append(make([]model.Record, k, k+len(s.recs)), s.recs...)
		s.present = append(make([]bool, k, k+len(s.present)), s.present...)
		s.base = n
	case n-s.base >= int64(len(s.recs)):
		k := int(n-s.base) + 1 - len(s.recs)
		s.recs = append(s.recs, make([]model.Record, k)...)
		s.present = append(s.present, make([]bool, k)...)
	}
	i := n - s.base
	if !s.present[i] {
		s.n++
	}
	s.recs[i], s.present[i] = rec, true
}

// delete removes member n, if present.
func (s *recordSet) delete(n int64) {
	i := n - s.base
	if i < 0 || i >= int64(len(s.recs)) || !s.present[i] {
		return
	}
	s.recs[i], s.present[i] = model.Record{}, false
	s.n--
	if s.n == 0 {
		s.clear()
		return
	}
	// Keep the window tight: drop absent slots at both ends. The front's
	// storage is reclaimed when the slice next grows.
	k := 0
	for !s.present[k] {
		k++
	}
	s.recs, s.present, s.base = s.recs[k:], s.present[k:], s.base+int64(k)
	e := len(s.recs)
	for !s.present[e-1] {
		e--
	}
	s.recs, s.present = s.recs[:e], s.present[:e]
}

// clear removes every member, keeping the storage.
func (s *recordSet) clear() {
	clear(s.recs)
	clear(s.present)
	s.recs, s.present, s.base, s.n = s.recs[:0], s.present[:0], 0, 0
}

// each calls f for every member, in increasing message number.
func (s *recordSet) each(f func(rec model.Record)) {
	for i, ok := range s.present {
		if ok {
			f(s.recs[i])
		}
	}
}
