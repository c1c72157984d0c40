package check

import (
	"slices"
	"testing"
)

// TestInsertedAt: a slot opens at every index, the others keep their
// order, and the element behind the length comes back for reuse (zero
// when the slice was full).
func TestInsertedAt(t *testing.T) {
	for n := range 5 {
		for i := 0; i <= n; i++ {
			for _, room := range []bool{false, true} {
				s := make([]int, n, n+1)
				for k := range s {
					s[k] = k + 1
				}
				if room {
					s[:n+1][n] = 99 // what an earlier use left behind the length
				} else {
					s = s[:n:n]
				}
				got, spare := insertedAt(s, i)
				got[i] = -1
				want := slices.Insert(func() []int {
					w := make([]int, n)
					for k := range w {
						w[k] = k + 1
					}
					return w
				}(), i, -1)
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d i=%d room=%v: %v, want %v", n, i, room, got, want)
				}
				if wantSpare := map[bool]int{false: 0, true: 99}[room]; spare != wantSpare {
					t.Fatalf("n=%d i=%d room=%v: spare %d, want %d", n, i, room, spare, wantSpare)
				}
			}
		}
	}
}
