package check

import "testing"

func TestSplitCut(t *testing.T) {
	vs := []Violation{
		{InvDup, "a0:1 again at p0 offset 3", 1},
		{InvDup, "... and 3 more duplicate copies", 50},
		{InvState, "... and 6 more log-shape violations", 5},
		{InvDedup, "... and 2 more", 7},
		{InvOrder, "... and more to come", 8},
	}
	kept, cut, by := SplitCut(vs)
	if len(kept) != 2 || kept[1].Invariant != InvOrder || cut != 11 || by[InvDup] != 3 || by[InvState] != 6 || by[InvDedup] != 2 {
		t.Errorf("kept %v, cut %d, by %v", kept, cut, by)
	}
}
