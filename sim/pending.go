package sim

import (
	"cmp"
	"slices"
)

// EachPending calls f for every pending event, in the order the loop will
// run them: by time, then by scheduling sequence. bg tells a background
// event. It lets a caller fingerprint the queue (a state hash for an
// explorer) without depending on the heap's layout or on sequence numbers,
// which only order events and are not passed to f. f must not schedule.
func (l *Loop[E]) EachPending(f func(at Time, ev E, bg bool)) {
	// Sort a copy of the heap's keys (24 bytes each, one concrete type)
	// rather than of the events with their keys: the state hash calls
	// this at every choice point it hashes, and a sort of whole entries
	// through the generic comparator took a fifth of a replicated run's
	// hashing.
	h := append(l.pending[:0], l.q.h...)
	slices.SortFunc(h, func(a, b key) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for i := range h {
		f(h[i].at, l.q.evs[h[i].slot], h[i].seq&1 == 1)
	}
	l.pending = h[:0]
}
