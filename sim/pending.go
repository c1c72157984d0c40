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
	h := l.pending[:0]
	for _, k := range l.q.h {
		h = append(h, entry[E]{at: k.at, seq: k.seq, ev: l.q.evs[k.slot]})
	}
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
