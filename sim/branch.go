package sim

// A world restored from a saved state (an explorer's branch, docs/
// explore.md "Saved states") is changed in four ways before it runs on:
// the event the handler was given when the state was saved goes back in
// the queue, the pending events are renumbered to a longer fault plan,
// the plan's new actions are scheduled where a run with that plan from
// the start would have had them, and the events such a run handled at
// its start for new actions there (a plan's 0s rules) are counted.

// Requeue puts back ev, the event the handler was last given (at the
// loop's current time, with sequence number seq and background flag bg),
// as if it had not been handled: it is pending again with the same key,
// and the loop counts one event fewer.
func (l *Loop[E]) Requeue(seq uint64, ev E, bg bool) {
	l.q.pushKey(l.now, seq, ev, bg)
	l.events--
	if !bg {
		l.fg++
	}
}

// Count adds n to the events handled: events a run from the start would
// have handled before the saved state's point that the state's own run did
// not have (a longer plan's actions at 0s).
func (l *Loop[E]) Count(n int64) { l.events += n }

// Edit calls f on every pending event; f may change an event in place,
// but not in a way that changes when it runs (its time and order are
// kept). f must not schedule. The events' memos (EachPendingMemo) are
// dropped: a new generation.
func (l *Loop[E]) Edit(f func(ev *E)) {
	for _, k := range l.q.h {
		f(&l.q.evs[k.slot])
	}
	l.q.gen++
}

// AtBefore schedules ev (foreground) at time at, ordered before every
// pending event at that time that late selects and after the other
// pending events of that time: it takes the sequence number of the
// first such event, and that event and every later-numbered one move
// one number up. Without such an event it is [Loop.At]. late must not
// schedule.
func (l *Loop[E]) AtBefore(at Time, ev E, late func(ev E) bool) uint64 {
	if at < l.now {
		at = l.now
	}
	first, found := uint64(0), false
	for _, k := range l.q.h {
		if k.at == at && (!found || k.seq>>1 < first) && late(l.q.evs[k.slot]) {
			first, found = k.seq>>1, true
		}
	}
	if !found {
		return l.At(at, ev)
	}
	for i := range l.q.h {
		if k := &l.q.h[i]; k.seq>>1 >= first {
			k.seq += 2 // one number up, the background bit kept
		}
	}
	l.q.seq++
	l.q.heapify() // a new generation: EachPending sorts again
	l.fg++
	l.q.pushKey(at, first, ev, false)
	return first
}

// pushKey adds ev with the given sequence number, below the next one
// (Requeue, AtBefore): the queue's generation changes, since the key is
// not newer than every key pushed before it.
func (q *Queue[E]) pushKey(at Time, seq uint64, ev E, bg bool) {
	next := q.seq
	q.seq = seq
	q.push(at, ev, bg)
	q.seq = next
	q.gen++
}
