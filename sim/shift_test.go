package sim

import (
	"slices"
	"testing"
)

// TestShift: Shift moves the selected events later, keeps their
// scheduling order among events at the same time, leaves the others, and
// EarliestExcept finds the earliest event it does not select.
func TestShift(t *testing.T) {
	var l Loop[tev]
	even := func(ev tev) bool { return ev.id%2 == 0 }
	for i := range 20 {
		// ids 0..19 at times 19..0; even ids are background.
		if i%2 == 0 {
			l.Background(Time(19-i), tev{id: i})
		} else {
			l.At(Time(19-i), tev{id: i})
		}
	}
	at, ok := l.EarliestExcept(even)
	if !ok || at != 0 {
		t.Fatalf("EarliestExcept = %d %v, want 0 true", at, ok)
	}
	if n := l.Shift(100, even); n != 10 {
		t.Fatalf("Shift moved %d events, want 10", n)
	}
	l.At(101, tev{id: 100}) // scheduled after id 18 (now at 101): runs after it
	if at, ok := l.EarliestExcept(func(tev) bool { return true }); ok {
		t.Fatalf("EarliestExcept(all) = %d true, want none", at)
	}
	var h pendH
	l.RunTo(1000, &h)
	want := []int{19, 17, 15, 13, 11, 9, 7, 5, 3, 1, 18, 100, 16, 14, 12, 10, 8, 6, 4, 2, 0}
	if !slices.Equal(h.got, want) {
		t.Fatalf("ran %v, want %v", h.got, want)
	}
}
