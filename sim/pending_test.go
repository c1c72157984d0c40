package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

type pendH struct{ got []int }

func (h *pendH) Handle(_ Time, _ uint64, ev tev) { h.got = append(h.got, ev.id) }

// TestEachPending: EachPending lists the pending events in the order Run
// then handles them, with their background flags.
func TestEachPending(t *testing.T) {
	var l Loop[tev]
	l.At(5, tev{id: 0})
	l.Background(3, tev{id: 1})
	l.At(5, tev{id: 2})
	l.At(1, tev{id: 3})
	l.Background(5, tev{id: 4})
	var ids []int
	var bgs []bool
	l.EachPending(func(at Time, ev tev, bg bool) { ids = append(ids, ev.id); bgs = append(bgs, bg) })
	want := []int{3, 1, 0, 2, 4}
	wantBg := []bool{false, true, false, false, true}
	for i := range want {
		if ids[i] != want[i] || bgs[i] != wantBg[i] {
			t.Fatalf("EachPending = %v %v, want %v %v", ids, bgs, want, wantBg)
		}
	}
	var h pendH
	l.RunTo(10, &h)
	for i := range want {
		if h.got[i] != want[i] {
			t.Fatalf("ran %v, want %v", h.got, want)
		}
	}
}

// TestEachPendingIncremental: across pushes, pops, shifts, trims and
// resets in random order, EachPending (which keeps its sorted keys from
// one call to the next) lists what a fresh sort of the queue lists.
func TestEachPendingIncremental(t *testing.T) {
	r := NewRand(7, 1)
	var l Loop[tev]
	id := 0
	var h pendH
	for step := range 20000 {
		switch op := r.IntN(100); {
		case op < 45:
			pushRandom(r, &l, &id)
		case op < 80:
			if at, ok := l.Next(); ok {
				l.RunToLimit(at, 1+int64(r.IntN(3)), &h)
			}
		case op < 84:
			l.Shift(time.Duration(1+r.IntN(20))*time.Millisecond, func(ev tev) bool { return ev.id%3 == 0 })
		case op < 87:
			l.Trim(l.Pending() + r.IntN(4))
		case op < 88:
			l.Reset()
		}
		if r.IntN(3) > 0 {
			continue
		}
		type seen struct {
			at Time
			id int
			bg bool
		}
		var got []seen
		l.EachPending(func(at Time, ev tev, bg bool) { got = append(got, seen{at, ev.id, bg}) })
		var fresh Loop[tev]
		fresh.q.h = append([]key(nil), l.q.h...)
		fresh.q.evs = l.q.evs
		var want []seen
		fresh.EachPending(func(at Time, ev tev, bg bool) { want = append(want, seen{at, ev.id, bg}) })
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: EachPending lists %v, a fresh sort %v", step, got, want)
		}
	}
}

// TestEachPendingMemo: across pushes, pops, shifts, edits, trims, resets
// and AtBefore in random order, a memo EachPendingMemo hands back filled
// holds what a fresh digest of its event and time gives (the memos follow
// their events through the merges, and a change of an event or of its
// time drops them), and memos are kept: most events are digested once.
func TestEachPendingMemo(t *testing.T) {
	r := NewRand(11, 1)
	var l Loop[tev]
	id := 0
	var h pendH
	digest := func(at Time, ev tev) [2]uint64 { return [2]uint64{uint64(at), uint64(ev.id)} }
	kept, filled := 0, 0
	for step := range 20000 {
		changeRandom(r, &l, &id, &h, r.IntN(100), [7]int{45, 78, 82, 85, 87, 89, 90})
		if r.IntN(3) > 0 {
			continue
		}
		l.EachPendingMemo(func(at Time, evp *tev, bg bool, m *Memo) {
			ev := *evp
			d := digest(at, ev)
			if !m.OK {
				m.Sum, m.Aux, m.OK = d, append(m.Aux[:0], uint64(ev.id)), true
				filled++
				return
			}
			kept++
			if m.Sum != d || len(m.Aux) != 1 || m.Aux[0] != uint64(ev.id) {
				t.Fatalf("step %d: the memo of event %d at %v holds %v %v, a fresh digest %v", step, ev.id, at, m.Sum, m.Aux, d)
			}
		})
	}
	if kept < 2*filled {
		t.Fatalf("memos kept %d times, filled %d: the memos are not kept", kept, filled)
	}
	t.Logf("memos kept %d times, filled %d", kept, filled)
}

// changeRandom makes the change of the queue op (0 to 99) picks by the
// cumulative bounds at: a push, a run of up to 3 events, a shift, an
// edit, an AtBefore, a trim, a reset; it reports false for op at or past
// the last bound (no change).
func changeRandom(r *rand.Rand, l *Loop[tev], id *int, h *pendH, op int, at [7]int) bool {
	switch {
	case op < at[0]:
		pushRandom(r, l, id)
	case op < at[1]:
		if t, ok := l.Next(); ok {
			l.RunToLimit(t, 1+int64(r.IntN(3)), h)
		}
	case op < at[2]:
		l.Shift(time.Duration(1+r.IntN(20))*time.Millisecond, func(ev tev) bool { return ev.id%3 == 0 })
	case op < at[3]:
		l.Edit(func(ev *tev) {
			if ev.id%2 == 0 {
				ev.id += 1 << 40
			}
		})
	case op < at[4]:
		l.AtBefore(l.Now().Add(time.Duration(r.IntN(20))*time.Millisecond), tev{id: *id}, func(ev tev) bool { return ev.id%2 == 1 })
		*id++
	case op < at[5]:
		l.Trim(l.Pending() + r.IntN(4))
	case op < at[6]:
		l.Reset()
	default:
		return false
	}
	return true
}

// pushRandom schedules event *id within the next 50 ms, in the
// background one time in four, and moves *id on.
func pushRandom(r *rand.Rand, l *Loop[tev], id *int) {
	at := l.Now().Add(time.Duration(r.IntN(50)) * time.Millisecond)
	if r.IntN(4) == 0 {
		l.Background(at, tev{id: *id})
	} else {
		l.At(at, tev{id: *id})
	}
	*id++
}
