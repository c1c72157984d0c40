package model

import "testing"

// TestJavaInt: the Java client's int is one bit wider than the sequence
// space, so Max+1 is its most negative value.
func TestJavaInt(t *testing.T) {
	for _, c := range []struct {
		bits uint8
		v    int64
		want int32
	}{
		{31, 2147483647, 2147483647},
		{31, 2147483648, -2147483648}, // lastSequence() of a batch straddling the wrap
		{31, 5 - 2147483647, -2147483642},
		{3, 7, 7},
		{3, 8, -8},
		{3, 9, -7},
		{3, 0 - 7, -7},
		{3, 1 - 7, -6},
		{3, -1, -1},
	} {
		if got := (SeqSpace{Bits: c.bits}).JavaInt(c.v); got != c.want {
			t.Errorf("bits %d JavaInt(%d) = %d, want %d", c.bits, c.v, got, c.want)
		}
	}
}
