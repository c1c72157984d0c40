package store

import (
	"cmp"
	"math"
	"slices"
)

// Rearm readies a list of armed plan rules for a world restored from a
// saved state that runs on under a longer plan. With idx it renumbers
// each rule's plan action (act, < 0 for none) to its index in that plan,
// idx[action]. Without it sorts the list as a run of the plan from the
// start arms the rules: those of the plan's 0s actions (zero), armed
// before the run's setup, first in plan order, then the others in the
// order they were armed (the sort is stable).
func Rearm[R any](rules []R, act func(*R) *int32, idx []uint64, zero func(int32) bool) {
	if idx != nil {
		for i := range rules {
			if a := act(&rules[i]); *a >= 0 {
				*a = int32(idx[*a])
			}
		}
		return
	}
	key := func(r *R) int64 {
		if a := *act(r); a >= 0 && zero(a) {
			return int64(a)
		}
		return math.MaxInt64
	}
	slices.SortStableFunc(rules, func(a, b R) int { return cmp.Compare(key(&a), key(&b)) })
}
