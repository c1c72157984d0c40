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
	for i := range l.sorted {
		k := &l.sorted[i].key
		f(k.at, l.q.evs[k.slot], k.seq&1 == 1)
	}
}

// Memo is a caller's note on one pending event (a state hash's digest of
// it), kept beside the event's key from one [Loop.EachPendingMemo] call
// to the next while the event stays pending and the queue's generation
// holds: a push or a pop keeps the other events' memos; a shift of keys,
// an Edit, a trim, a reset or an AtBefore/Requeue drops them all. A memo
// starts zero (OK false); the caller fills it.
type Memo struct {
	// Sum is the caller's digest.
	Sum [2]uint64
	// Aux is the caller's list of numbers to keep with it (any length).
	Aux []uint64
	// OK tells a memo the caller filled.
	OK bool
	// Every asks [Loop.SumPending] to visit the event at every call.
	Every bool
}

// memoKey is a pending event's key in EachPending's order, with its memo.
type memoKey struct {
	key
	memo Memo
}

// EachPendingMemo is [Loop.EachPending] with each event's memo, which f
// may read and fill: a caller that digests every pending event at every
// call (the state hash) digests an event once while it is pending. The
// memo must depend only on the event (which does not change while it is
// pending) and its time, never on where it is in the order. ev points at
// the event in the queue, valid during the call only: a caller that
// finds its memo filled need not read the event (a thousand events'
// loads a call).
func (l *Loop[E]) EachPendingMemo(f func(at Time, ev *E, bg bool, m *Memo)) {
	l.sortPending()
	l.sumOK = false // f fills memos in any order: SumPending sums again
	for i := range l.sorted {
		mk := &l.sorted[i]
		f(mk.at, &l.q.evs[mk.slot], mk.seq&1 == 1, &mk.memo)
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
// are the order: the popped prefix is dropped where it is and the new
// keys are merged in from the back, so that the keys before the first
// new one do not move (the list moves to the spare one, with room
// behind, when it has none). A change other than a push or a pop (Shift,
// Trim, Reset: the queue's generation) sorts everything again.
func (l *Loop[E]) sortPending() {
	q := &l.q
	defer func() { l.sortedNext, l.sortedGen, l.sortedOK = q.seq, q.gen, true }()
	if l.sortedOK && l.sortedGen == q.gen {
		fresh := l.pending[:0]
		if q.seq != l.sortedNext { // something was pushed
			for _, k := range q.h {
				if k.seq>>1 >= l.sortedNext {
					fresh = append(fresh, k)
				}
			}
		}
		l.pending = fresh[:0]
		if old := len(q.h) - len(fresh); old >= 0 && old <= len(l.sorted) {
			sortKeys(fresh)
			gone := len(l.sorted) - old
			l.sumPopped(l.sorted[:gone]) // pendsum.go
			l.unfilled += len(fresh)
			clear(l.sorted[:gone]) // the popped keys' memos
			kept := l.sorted[gone:]
			if len(kept)+len(fresh) > cap(kept) {
				// Out of room behind: move the kept keys to the front
				// of the spare list, with room for half as many again.
				moved := slices.Grow(append(l.spare[:0], kept...), len(fresh)+len(kept)/2+8)
				clear(l.sorted[:cap(l.sorted)]) // copies of the moved memos
				l.spare, kept = l.sorted[:0], moved
			}
			// Merge the fresh keys in from the back: the kept keys before
			// the first fresh one stay where they are.
			i, j := len(kept)-1, len(fresh)-1
			kept = kept[:len(kept)+len(fresh)]
			for k := len(kept) - 1; j >= 0; k-- {
				if i >= 0 && fresh[j].less(&kept[i].key) {
					kept[k] = kept[i]
					i--
				} else {
					kept[k] = memoKey{key: fresh[j]}
					j--
				}
			}
			l.sorted = kept
			return
		}
	}
	l.sumOK = false // every memo dropped
	keys := append(l.pending[:0], q.h...)
	sortKeys(keys)
	l.pending = keys[:0]
	clear(l.sorted)
	l.sorted = l.sorted[:0]
	for _, k := range keys {
		l.sorted = append(l.sorted, memoKey{key: k})
	}
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
