package sim

import "time"

// Handler receives the events a [Loop] runs. now is the event's time, seq its
// scheduling sequence number.
type Handler[E Event] interface {
	Handle(now Time, seq uint64, ev E)
}

// Limits bound a run. A zero field means "no limit" for that dimension.
type Limits struct {
	// Until is the last simulated time at which an event may run; events
	// scheduled later stay pending. Zero means no time limit.
	Until Time
	// MaxEvents is the largest number of events the run may handle.
	// Zero means no limit.
	MaxEvents int64
}

// StopReason tells why [Loop.Run] returned.
type StopReason uint8

const (
	// StopDrained: no event was pending.
	StopDrained StopReason = iota
	// StopTimeLimit: the next pending event lies after Limits.Until.
	StopTimeLimit
	// StopEventLimit: Limits.MaxEvents events have run.
	StopEventLimit
	// StopRequested: the handler called [Loop.Stop].
	StopRequested
)

// String returns the reason's name as printed in reports.
func (r StopReason) String() string {
	switch r {
	case StopDrained:
		return "drained"
	case StopTimeLimit:
		return "time-limit"
	case StopEventLimit:
		return "event-limit"
	case StopRequested:
		return "stopped"
	}
	return "unknown"
}

// Loop is the next-event simulation loop: a clock and a [Queue]. It is not
// safe for concurrent use; a run is single-threaded by design.
type Loop[E Event] struct {
	q      Queue[E]
	now    Time
	events int64 // events handled so far
	stop   bool
	// fg counts the pending foreground events.
	fg int
	// EachPending's state (pending.go): sorted are the queue's keys in
	// order as of its last call, each with its memo (EachPendingMemo),
	// when the queue's next sequence number was sortedNext and its
	// generation sortedGen (sortedOK: sorted is set); pending and spare
	// are its buffers.
	sorted, spare         []memoKey
	pending               []key
	sortedNext, sortedGen uint64
	sortedOK              bool
	// SumPending's state (pendsum.go): psum sums the filled memos of
	// sorted (sumOK: it does), of which every are marked Every; unfilled
	// counts the memos of sorted not filled.
	psum            PendingSum
	sumOK           bool
	every, unfilled int
}

// Now returns the current simulated time: the time of the event being
// handled, or of the last one handled.
func (l *Loop[E]) Now() Time { return l.now }

// Events returns how many events have been handled.
func (l *Loop[E]) Events() int64 { return l.events }

// Pending returns the number of scheduled events not yet run.
func (l *Loop[E]) Pending() int { return l.q.Len() }

// At schedules ev at time at. A time in the past is moved to Now, so an
// event never runs before the one that scheduled it. It returns the event's
// scheduling sequence number.
func (l *Loop[E]) At(at Time, ev E) uint64 {
	if at < l.now {
		at = l.now
	}
	l.fg++
	return l.q.push(at, ev, false)
}

// Background schedules ev at time at as a background event: housekeeping
// (a broker's periodic expiry check, say) that runs in order with the rest
// but does not keep the run alive. Run reports [StopDrained] once only
// background events are pending. A time in the past is moved to Now.
func (l *Loop[E]) Background(at Time, ev E) uint64 {
	if at < l.now {
		at = l.now
	}
	return l.q.push(at, ev, true)
}

// After schedules ev d after Now. A negative d counts as zero.
func (l *Loop[E]) After(d time.Duration, ev E) uint64 {
	if d < 0 {
		d = 0
	}
	l.fg++
	return l.q.push(l.now.Add(d), ev, false)
}

// Next returns the time of the earliest pending event, foreground or
// background; ok is false when none is pending.
func (l *Loop[E]) Next() (at Time, ok bool) { return l.q.Peek() }

// RunTo handles, in (time, sequence) order, every pending event due at or
// before t, background events included, and then moves the clock to t if
// t is later. It is for a world whose time a test script moves by hand;
// runs use [Loop.Run]. It ignores [Loop.Stop] and has no event limit: a
// handler that keeps scheduling events at the current time never returns.
func (l *Loop[E]) RunTo(t Time, h Handler[E]) { l.RunToLimit(t, 0, h) }

// RunToLimit is RunTo with a cap: it stops once the loop has handled
// maxEvents events in all (maxEvents <= 0: no cap), and reports whether it
// reached t.
func (l *Loop[E]) RunToLimit(t Time, maxEvents int64, h Handler[E]) bool {
	for {
		at, ok := l.q.Peek()
		if !ok || at > t {
			break
		}
		if maxEvents > 0 && l.events >= maxEvents {
			return false
		}
		at, seq, ev, bg := l.q.pop()
		if !bg {
			l.fg--
		}
		l.now = at
		l.events++
		h.Handle(at, seq, ev)
	}
	if t > l.now {
		l.now = t
	}
	return true
}

// Stop asks Run to return after the current event.
func (l *Loop[E]) Stop() { l.stop = true }

// Stopped reports whether Stop was called during the current event.
func (l *Loop[E]) Stopped() bool { return l.stop }

// Run handles events in (time, sequence) order until no foreground event is
// pending (background events left over stay queued), the next event lies
// after lim.Until, lim.MaxEvents events have run, or the handler calls Stop,
// whichever comes first.
func (l *Loop[E]) Run(lim Limits, h Handler[E]) StopReason {
	l.stop = false
	for {
		at, ok := l.q.Peek()
		if !ok || l.fg == 0 {
			return StopDrained
		}
		if lim.Until > 0 && at > lim.Until {
			return StopTimeLimit
		}
		if lim.MaxEvents > 0 && l.events >= lim.MaxEvents {
			return StopEventLimit
		}
		at, seq, ev, bg := l.q.pop()
		if !bg {
			l.fg--
		}
		l.now = at
		l.events++
		h.Handle(at, seq, ev)
		if l.stop {
			return StopRequested
		}
	}
}

// Trim releases the storage the queue grew past keep events (a run's
// backlog at its peak), once it holds at most keep: a loop reused by
// another run then holds its pending events, not the largest queue it
// ever had. The events and their order are unchanged.
func (l *Loop[E]) Trim(keep int) {
	l.q.trim(keep)
	if cap(l.pending) > keep || cap(l.sorted) > keep || cap(l.spare) > keep {
		l.pending, l.sorted, l.spare, l.sortedOK, l.sumOK = nil, nil, nil, false, false
		l.psum = PendingSum{}
	}
}

// Reset returns the loop to its zero state (time 0, no events, none
// handled, sequence numbers from 0) and keeps the storage of its queue, so
// that a run after Reset allocates nothing for events the previous run's
// queue had room for. A run after Reset is identical to a run on a new
// Loop.
func (l *Loop[E]) Reset() {
	l.q.reset()
	l.now, l.events, l.stop, l.fg = 0, 0, false, 0
	l.pending, l.sorted, l.spare = l.pending[:0], l.sorted[:0], l.spare[:0]
	l.sortedNext, l.sortedGen, l.sortedOK, l.sumOK = 0, 0, false, false
}
