package sim

import (
	"testing"

	"pgregory.net/rapid"
)

// TestQueueTrimKeepsOrder: a queue trimmed after a backlog pops the same
// events in the same order as its untrimmed twin, through later pushes
// too, and holds storage for its pending events only.
func TestQueueTrimKeepsOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a, b Queue[tev]
		n := rapid.IntRange(0, 400).Draw(t, "backlog")
		pops := rapid.IntRange(0, n).Draw(t, "pops")
		keep := rapid.IntRange(1, 64).Draw(t, "keep")
		times := rapid.SliceOfN(rapid.Int64Range(0, 30), n, n).Draw(t, "times")
		for i, at := range times {
			a.Push(Time(at), tev{id: i})
			b.Push(Time(at), tev{id: i})
		}
		for range pops {
			a.Pop()
			b.Pop()
		}
		bigCap := cap(b.evs)
		b.trim(keep)
		if bigCap > keep && b.Len() <= keep && cap(b.evs) > b.Len() {
			t.Fatalf("trimmed queue of %d events keeps room for %d", b.Len(), cap(b.evs))
		}
		later := rapid.SliceOf(rapid.Int64Range(0, 40)).Draw(t, "later")
		for i, at := range later {
			a.Push(Time(at), tev{id: n + i})
			b.Push(Time(at), tev{id: n + i})
		}
		for a.Len() > 0 {
			at1, s1, e1 := a.Pop()
			at2, s2, e2 := b.Pop()
			if at1 != at2 || s1 != s2 || e1 != e2 {
				t.Fatalf("untrimmed popped (%v,%d,%v), trimmed (%v,%d,%v)", at1, s1, e1, at2, s2, e2)
			}
		}
		if b.Len() != 0 {
			t.Fatalf("trimmed queue still holds %d events", b.Len())
		}
	})
}
