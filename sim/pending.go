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
	h := append(l.pending[:0], l.q.h...)
	slices.SortFunc(h, func(a, b entry[E]) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for i := range h {
		f(h[i].at, h[i].ev, h[i].seq&1 == 1)
	}
	clear(h)
	l.pending = h[:0]
}
