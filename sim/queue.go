package sim

// Event is a typed simulation event. AppendDescription appends a one-line,
// deterministic description of the event (no pointers, no wall-clock time,
// no newline) to b and returns the extended slice.
type Event interface {
	AppendDescription(b []byte) []byte
}

// Describe returns e's one-line description.
func Describe(e Event) string { return string(e.AppendDescription(nil)) }

// key is a pending event's place in the heap: its ordering key and the
// slot of the queue's event store that holds the event itself. The heap
// moves keys (24 bytes), not events (a world's are 56), as it sifts.
type key struct {
	at   Time
	seq  uint64
	slot int32
}

// less orders keys by time, then by scheduling sequence.
func (a *key) less(b *key) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// Queue is a binary min-heap of pending events ordered by (time, scheduling
// sequence). Events are stored by value in a store whose slots are reused,
// and the heap orders their keys, so Push and Pop allocate only when the
// backing slices grow. The zero value is an empty queue.
type Queue[E any] struct {
	h    []key
	evs  []E     // the events, by slot
	free []int32 // slots of evs not in use
	seq  uint64  // sequence number given to the next pushed event
	// gen counts the changes other than a push or a pop (a shift of
	// keys, a trim that moves slots, a reset): EachPending's sorted
	// copy of the keys is good only within one generation.
	gen uint64
}

// Len returns the number of pending events.
func (q *Queue[E]) Len() int { return len(q.h) }

// Push adds ev at time at and returns its scheduling sequence number, which
// is unique and increases with every push.
func (q *Queue[E]) Push(at Time, ev E) uint64 { return q.push(at, ev, false) }

// push adds ev; the key's seq field holds the sequence number shifted
// left by one with the background flag in the low bit, so the order by
// (time, seq) is unchanged.
func (q *Queue[E]) push(at Time, ev E, bg bool) uint64 {
	s := q.seq
	q.seq++
	k := key{at: at, seq: s << 1}
	if bg {
		k.seq |= 1
	}
	if n := len(q.free); n > 0 {
		k.slot = q.free[n-1]
		q.free = q.free[:n-1]
		q.evs[k.slot] = ev
	} else {
		k.slot = int32(len(q.evs))
		q.evs = append(q.evs, ev)
	}
	q.h = append(q.h, k)
	// Sift up with a hole.
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !k.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = k
	return s
}

// Peek returns the time of the earliest pending event. ok is false when the
// queue is empty.
func (q *Queue[E]) Peek() (at Time, ok bool) {
	if len(q.h) == 0 {
		return 0, false
	}
	return q.h[0].at, true
}

// Pop removes and returns the earliest pending event, its time and its
// scheduling sequence number. It panics on an empty queue.
func (q *Queue[E]) Pop() (at Time, seq uint64, ev E) {
	at, seq, ev, _ = q.pop()
	return at, seq, ev
}

// pop is Pop that also returns the background flag.
func (q *Queue[E]) pop() (at Time, seq uint64, ev E, bg bool) {
	h := q.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.h = h
	if n > 0 {
		// Sift the last key down from the root with a hole.
		i := 0
		for {
			c := 2*i + 1
			if c >= n {
				break
			}
			if r := c + 1; r < n && h[r].less(&h[c]) {
				c = r
			}
			if !h[c].less(&last) {
				break
			}
			h[i] = h[c]
			i = c
		}
		h[i] = last
	}
	ev = q.evs[top.slot]
	var zero E
	q.evs[top.slot] = zero // let the event be collected
	q.free = append(q.free, top.slot)
	return top.at, top.seq >> 1, ev, top.seq&1 == 1
}

// trim releases the storage of a queue that grew past keep events and
// now holds at most keep: the pending events move to new slices just
// large enough, in their heap places (the order by time and scheduling
// sequence is unchanged; only the slots, which order nothing, change).
func (q *Queue[E]) trim(keep int) {
	if cap(q.evs) <= keep || len(q.h) > keep {
		return
	}
	h := make([]key, len(q.h))
	evs := make([]E, len(q.h))
	for i, k := range q.h {
		evs[i] = q.evs[k.slot]
		k.slot = int32(i)
		h[i] = k
	}
	q.h, q.evs, q.free = h, evs, nil
	q.gen++
}

// reset empties the queue and keeps its storage; its events are dropped
// (no stale event kept alive) and sequence numbers start from 0.
func (q *Queue[E]) reset() {
	clear(q.evs[:cap(q.evs)])
	q.h, q.evs, q.free, q.seq = q.h[:0], q.evs[:0], q.free[:0], 0
	q.gen++
}
