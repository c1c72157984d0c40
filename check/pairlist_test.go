package check

import (
	"math/rand/v2"
	"testing"
)

// TestPairListAsMap: a pairList finds and adds pairs as a map keyed by
// the pair would, pairs coming mostly in increasing order (new ids) and
// sometimes anywhere, and stays ordered.
func TestPairListAsMap(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 5))
		var l pairList[int]
		ref := map[[2]int64]int{}
		next := int64(1000)
		for i := range 2000 {
			a, b := next, int32(rng.IntN(4))
			switch r := rng.IntN(10); {
			case r < 3:
				next++ // a new id
				a = next
			case r < 8:
				a = next - int64(rng.IntN(5)) // a recent one
			default:
				a = int64(rng.IntN(int(next))) // any
			}
			e := l.of(a, b)
			want, ok := ref[[2]int64{a, int64(b)}]
			if e.seen != ok || ok && e.v != want {
				t.Fatalf("seed %d step %d: (%d, %d) = %v %v, want %v %v", seed, i, a, b, e.v, e.seen, want, ok)
			}
			e.v, e.seen = i, true
			ref[[2]int64{a, int64(b)}] = i
		}
		if len(l) != len(ref) {
			t.Fatalf("seed %d: %d entries, want %d", seed, len(l), len(ref))
		}
		for k := 1; k < len(l); k++ {
			if !l[k-1].before(l[k].a, l[k].b) {
				t.Fatalf("seed %d: entries %d and %d out of order", seed, k-1, k)
			}
		}
	}
}
