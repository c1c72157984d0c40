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
	l.sortPending()
	for _, k := range l.sorted {
		f(k.at, l.q.evs[k.slot], k.seq&1 == 1)
	}
}

// sortPending brings l.sorted up to date: the queue's keys by time, then
// by scheduling sequence. The state hash calls EachPending at every
// choice point it hashes, and a replicated world holds thousands of
// pending events of which a few change between two points; so the keys
// are not sorted again. A pop takes the least key, so the keys of the
// last call that were popped since are a prefix of it; the keys pushed
// since are those with a sequence number from the last call's next one
// on. The rest of the last call's keys, merged with the new ones sorted,
// are the order. A change other than a push or a pop (Shift, Trim,
// Reset: the queue's generation) sorts everything again.
func (l *Loop[E]) sortPending() {
	q := &l.q
	defer func() { l.sortedNext, l.sortedGen, l.sortedOK = q.seq, q.gen, true }()
	if l.sortedOK && l.sortedGen == q.gen {
		fresh := l.pending[:0]
		for _, k := range q.h {
			if k.seq>>1 >= l.sortedNext {
				fresh = append(fresh, k)
			}
		}
		l.pending = fresh[:0]
		if old := len(q.h) - len(fresh); old >= 0 && old <= len(l.sorted) {
			sortKeys(fresh)
			kept := l.sorted[len(l.sorted)-old:]
			merged := l.spare[:0]
			i, j := 0, 0
			for i < len(kept) && j < len(fresh) {
				if fresh[j].less(&kept[i]) {
					merged = append(merged, fresh[j])
					j++
				} else {
					merged = append(merged, kept[i])
					i++
				}
			}
			merged = append(append(merged, kept[i:]...), fresh[j:]...)
			l.sorted, l.spare = merged, l.sorted[:0]
			return
		}
	}
	l.sorted = append(l.sorted[:0], q.h...)
	sortKeys(l.sorted)
}

// sortKeys sorts keys by time, then by scheduling sequence.
func sortKeys(h []key) {
	slices.SortFunc(h, func(a, b key) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.seq, b.seq)
	})
}
