package sim

import (
	"slices"
	"testing"
)

// TestRequeueAndAtBefore: an event requeued runs again in its place and
// is counted once; an event scheduled with AtBefore runs after the
// pending events of its time that late does not select and before those
// it selects, the rest keeping their order; Edit changes events in place.
func TestRequeueAndAtBefore(t *testing.T) {
	var l Loop[tev]
	l.At(5, tev{1})  // a "plan" event: late does not select ids < 10
	l.At(9, tev{2})  // another
	l.At(5, tev{10}) // a later-scheduled event at 5
	l.At(3, tev{11})
	l.At(9, tev{12})
	l.Background(9, tev{13})
	var o pendH // records the ids of the events it is given
	// Take the first event and put it back.
	at, seq, e, bg := l.q.pop()
	l.now, l.events = at, l.events+1
	if !bg {
		l.fg--
	}
	l.Requeue(seq, e, bg)
	if l.Events() != 0 || l.Pending() != 6 {
		t.Fatalf("after Requeue: %d events, %d pending", l.Events(), l.Pending())
	}
	late := func(e tev) bool { return e.id >= 10 }
	l.AtBefore(5, tev{3}, late)
	l.AtBefore(9, tev{4}, late)
	l.AtBefore(7, tev{5}, late) // no event at 7: as At
	l.Edit(func(e *tev) {
		if e.id == 11 {
			e.id = 21
		}
	})
	l.Run(Limits{}, &o)
	// 13 is a background event: the run ends when only it is left.
	if want := []int{21, 1, 3, 10, 5, 2, 4, 12}; !slices.Equal(o.got, want) {
		t.Fatalf("order %v, want %v", o.got, want)
	}
	if l.Events() != 8 {
		t.Fatalf("%d events handled, want 8", l.Events())
	}
}
