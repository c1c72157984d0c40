package sim

import "testing"

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
