package sim

import (
	"slices"
	"testing"
)

// TestSumPending: across pushes, pops, shifts, edits, trims, resets and
// AtBefore in random order, with EachPending and EachPendingMemo called
// between, the sum SumPending keeps equals a PendingSum of every pending
// event added afresh in order, each is called for the events whose memo
// is marked Every, in order, and the memos are kept (fewer than half of
// the events summed are digested).
func TestSumPending(t *testing.T) {
	r := NewRand(13, 1)
	var l Loop[tev]
	id := 0
	var h pendH
	digest := func(at Time, ev tev) [2]uint64 {
		return [2]uint64{fmix(uint64(at)<<20 ^ uint64(ev.id)), fmix(uint64(ev.id)*3 + 1)}
	}
	filled, sums, seen := 0, 0, 0
	for step := range 30000 {
		switch op := r.IntN(100); {
		case changeRandom(r, &l, &id, &h, op, [7]int{45, 78, 80, 81, 82, 83, 84}):
		case op < 87:
			l.EachPending(func(Time, tev, bool) {})
		case op < 88:
			l.EachPendingMemo(func(at Time, ev *tev, _ bool, m *Memo) {
				if !m.OK && ev.id%2 == 0 {
					m.Sum, m.OK, m.Every = digest(at, *ev), true, ev.id%5 == 0
				}
			})
		}
		if r.IntN(3) > 0 {
			continue
		}
		sums++
		seen += l.Pending()
		var every []int
		got := l.SumPending(func(at Time, ev *tev, _ bool, m *Memo) {
			m.Sum, m.Every = digest(at, *ev), ev.id%5 == 0
			filled++
		}, func(at Time, ev *tev, _ bool, m *Memo) {
			if m.Sum != digest(at, *ev) {
				t.Fatalf("step %d: the memo of event %d at %v holds %v, a fresh digest %v", step, ev.id, at, m.Sum, digest(at, *ev))
			}
			every = append(every, ev.id)
		})
		var want PendingSum
		var wantEvery []int
		var fresh Loop[tev]
		fresh.q.h = append([]key(nil), l.q.h...)
		fresh.q.evs = l.q.evs
		fresh.EachPending(func(at Time, ev tev, _ bool) {
			want.Add(at, digest(at, ev))
			if ev.id%5 == 0 {
				wantEvery = append(wantEvery, ev.id)
			}
		})
		if got != want.Sum() {
			t.Fatalf("step %d: SumPending kept %x, the %d events added afresh %x", step, got, l.Pending(), want.Sum())
		}
		if !slices.Equal(every, wantEvery) {
			t.Fatalf("step %d: each visited %v, want %v", step, every, wantEvery)
		}
	}
	if 2*filled > seen {
		t.Fatalf("%d memos filled for %d pending events summed: the memos are not kept", filled, seen)
	}
	t.Logf("%d memos filled for %d pending events summed, in %d sums", filled, seen, sums)
}

// TestPendingSumOrder: the digest tells apart two orders of the same
// events at one time, the same events at different times, and a
// sequence with an event more; a group emptied by pops leaves no trace.
func TestPendingSumOrder(t *testing.T) {
	d := func(i uint64) [2]uint64 { return [2]uint64{fmix(i), fmix(i + 100)} }
	sum := func(add func(s *PendingSum)) [2]uint64 {
		var s PendingSum
		add(&s)
		return s.Sum()
	}
	ab := sum(func(s *PendingSum) { s.Add(5, d(1)); s.Add(5, d(2)) })
	ba := sum(func(s *PendingSum) { s.Add(5, d(2)); s.Add(5, d(1)) })
	split := sum(func(s *PendingSum) { s.Add(5, d(1)); s.Add(6, d(2)) })
	more := sum(func(s *PendingSum) { s.Add(5, d(1)); s.Add(5, d(2)); s.Add(5, d(0)) })
	for _, o := range [][2]uint64{ba, split, more} {
		if o == ab {
			t.Fatalf("equal digests %x for different sequences", o)
		}
	}
	popped := sum(func(s *PendingSum) {
		s.Add(3, d(9))
		s.Add(5, d(7))
		s.Add(5, d(1))
		s.Add(5, d(2))
		s.popFirst(3, d(9))
		s.popFirst(5, d(7))
	})
	if popped != ab {
		t.Fatalf("after pops %x, the rest added afresh %x", popped, ab)
	}
	if z := sum(func(s *PendingSum) { s.Add(4, d(3)); s.popFirst(4, d(3)) }); z != ([2]uint64{}) {
		t.Fatalf("an emptied sum is %x, not zero", z)
	}
}
