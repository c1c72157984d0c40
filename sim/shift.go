package sim

import "time"

// EarliestExcept returns the time of the earliest pending event that
// skip does not select, foreground or background; ok is false when every
// pending event is selected (or none is pending). It changes nothing.
// skip must not schedule.
func (l *Loop[E]) EarliestExcept(skip func(ev E) bool) (at Time, ok bool) {
	for _, k := range l.q.h {
		if (!ok || k.at < at) && !skip(l.q.evs[k.slot]) {
			at, ok = k.at, true
		}
	}
	return at, ok
}

// Shift moves every pending event that match selects d later (d >= 0)
// and reports how many it moved. Each keeps its scheduling sequence
// number, so events at the same time still run in the order they were
// scheduled. It lets a world carry a self-contained part of itself (the
// idle replication of scenarios/world/world_replidle.go) across a span
// in which nothing else happens, in one step instead of one event at a
// time. match must not schedule.
func (l *Loop[E]) Shift(d time.Duration, match func(ev E) bool) int {
	if d <= 0 {
		return 0
	}
	moved := 0
	for i := range l.q.h {
		k := &l.q.h[i]
		if match(l.q.evs[k.slot]) {
			k.at = k.at.Add(d)
			moved++
		}
	}
	if moved > 0 {
		l.q.heapify()
	}
	return moved
}

// heapify restores the heap order of q.h after keys changed in place.
// The order the queue pops in depends on the keys alone (time, then the
// unique sequence number), not on the heap's layout.
func (q *Queue[E]) heapify() {
	q.gen++
	h := q.h
	n := len(h)
	for i := n/2 - 1; i >= 0; i-- {
		k := h[i]
		j := i
		for {
			c := 2*j + 1
			if c >= n {
				break
			}
			if r := c + 1; r < n && h[r].less(&h[c]) {
				c = r
			}
			if !h[c].less(&k) {
				break
			}
			h[j] = h[c]
			j = c
		}
		h[j] = k
	}
}
