package store

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIDTableAsMap: an IDTable behaves as a map under ids handed out in
// increasing order (sometimes stored a little out of order) and freed in
// any order, some kept for very long (to make the window spill), over
// resets; its ids come out in increasing order.
func TestIDTableAsMap(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		var tb IDTable[int]
		for round := range 3 {
			ref := map[uint64]int{}
			var live []uint64
			next := uint64(1 + rng.IntN(5))
			var pending []uint64 // handed out, not yet stored
			for step := range 3000 {
				switch r := rng.IntN(100); {
				case r < 45:
					pending = append(pending, next)
					next += uint64(1 + rng.IntN(2))
				case r < 55 && len(pending) > 0:
					// Store a handed-out id, not always the newest.
					i := len(pending) - 1 - rng.IntN(min(len(pending), 3))
					id := pending[i]
					pending = slices.Delete(pending, i, i+1)
					tb.Put(id, step)
					ref[id] = step
					live = append(live, id)
				case r < 85 && len(live) > 0:
					// Free one; the oldest rarely (some live very long).
					i := rng.IntN(len(live))
					if i == 0 && len(live) > 1 && rng.IntN(50) != 0 {
						i = 1
					}
					id := live[i]
					live = slices.Delete(live, i, i+1)
					tb.Del(id)
					delete(ref, id)
				case len(live) > 0:
					id := live[rng.IntN(len(live))]
					tb.Set(id, -step)
					ref[id] = -step
				}
				for _, id := range pending {
					tb.Put(id, int(id))
					ref[id] = int(id)
					live = append(live, id)
				}
				pending = pending[:0]
				if tb.Len() != len(ref) {
					t.Fatalf("seed %d round %d step %d: len %d, want %d", seed, round, step, tb.Len(), len(ref))
				}
				if step%97 == 0 {
					for id, v := range ref {
						if got, ok := tb.Get(id); !ok || got != v {
							t.Fatalf("seed %d step %d: get(%d) = %d, %v; want %d", seed, step, id, got, ok, v)
						}
					}
					if _, ok := tb.Get(next + 7); ok {
						t.Fatalf("seed %d step %d: an id never stored is live", seed, step)
					}
					ids := tb.IDs(nil)
					want := make([]uint64, 0, len(ref))
					for id := range ref {
						want = append(want, id)
					}
					slices.Sort(want)
					if !slices.Equal(ids, want) {
						t.Fatalf("seed %d step %d: ids %v, want %v", seed, step, ids, want)
					}
				}
			}
			if round == 1 && len(tb.spill) == 0 && seed == 1 {
				t.Logf("seed %d: nothing spilled", seed)
			}
			tb.Reset()
			if tb.Len() != 0 {
				t.Fatalf("a reset table holds %d", tb.Len())
			}
		}
	}
}

// TestIDTableSpills: one entry kept while a million come and go keeps the
// window small: memory follows the live entries.
func TestIDTableSpills(t *testing.T) {
	var tb IDTable[[4]int64]
	tb.Put(1, [4]int64{1})
	for id := uint64(2); id < 1_000_000; id++ {
		tb.Put(id, [4]int64{int64(id)})
		if id > 5 {
			tb.Del(id - 3)
		}
	}
	if c := cap(tb.slots); c > 4*spillSpan {
		t.Fatalf("the window's storage grew to %d slots for 5 live entries", c)
	}
	if v, ok := tb.Get(1); !ok || v[0] != 1 {
		t.Fatalf("the kept entry is %v, %v", v, ok)
	}
	if tb.Len() != 5 { // 1, 2 and the last three
		t.Fatalf("len %d, want 5", tb.Len())
	}
}
