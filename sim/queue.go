package sim

// Event is a typed simulation event. AppendDescription appends a one-line,
// deterministic description of the event (no pointers, no wall-clock time,
// no newline) to b and returns the extended slice.
type Event interface {
	AppendDescription(b []byte) []byte
}

// Describe returns e's one-line description.
func Describe(e Event) string { return string(e.AppendDescription(nil)) }

// entry is one pending event with its ordering key.
type entry[E any] struct {
	at  Time
	seq uint64
	ev  E
}

// less orders entries by time, then by scheduling sequence.
func (a *entry[E]) less(b *entry[E]) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// Queue is a binary min-heap of pending events ordered by (time, scheduling
// sequence). Events are stored by value, so Push and Pop allocate only when
// the backing slice grows. The zero value is an empty queue.
type Queue[E any] struct {
	h   []entry[E]
	seq uint64 // sequence number given to the next pushed event
}

// Len returns the number of pending events.
func (q *Queue[E]) Len() int { return len(q.h) }

// Push adds ev at time at and returns its scheduling sequence number, which
// is unique and increases with every push.
func (q *Queue[E]) Push(at Time, ev E) uint64 { return q.push(at, ev, false) }

// push adds ev; the entry's seq field holds the sequence number shifted
// left by one with the background flag in the low bit, so the order by
// (time, seq) is unchanged.
func (q *Queue[E]) push(at Time, ev E, bg bool) uint64 {
	s := q.seq
	q.seq++
	key := s << 1
	if bg {
		key |= 1
	}
	q.h = append(q.h, entry[E]{at: at, seq: key, ev: ev})
	// Sift up with a hole.
	h := q.h
	i := len(h) - 1
	x := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !x.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
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
	var zero entry[E]
	h[n] = zero // let the event be collected
	h = h[:n]
	q.h = h
	if n > 0 {
		// Sift the last element down from the root with a hole.
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
	return top.at, top.seq >> 1, top.ev, top.seq&1 == 1
}
