package check

import (
	"cmp"
	"slices"
)

// openTable holds, per key (a pair such as (pid, partition)), a list: the
// entries of the transaction open there. It is a slice in key order
// rather than a map, so that a list emptied when its transaction ends, or
// by a reset between runs, keeps its memory for the next: in steady state
// opening and closing transactions allocates nothing. Lists of keys a
// reset dropped stay behind the slice's length for keys to come.
type openTable[E any] []openList[E]

// openList is one key's list.
type openList[E any] struct {
	key  [2]int64
	list []E
}

func compareKey2(a, b [2]int64) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// find returns k's list, or nil when k has none.
func (t openTable[E]) find(k [2]int64) *openList[E] {
	i, ok := slices.BinarySearchFunc(t, k, func(o openList[E], k [2]int64) int { return compareKey2(o.key, k) })
	if !ok {
		return nil
	}
	return &t[i]
}

// add appends e to k's list, adding the key when it has none.
func (t *openTable[E]) add(k [2]int64, e E) {
	i, ok := slices.BinarySearchFunc(*t, k, func(o openList[E], k [2]int64) int { return compareKey2(o.key, k) })
	if !ok {
		s, spare := insertedAt(*t, i)
		s[i] = openList[E]{key: k, list: truncated(spare.list)}
		*t = s
	}
	(*t)[i].list = append((*t)[i].list, e)
}

// reset empties the table, keeping every list's memory.
func (t *openTable[E]) reset() {
	s := *t
	for i := range s {
		s[i] = openList[E]{list: truncated(s[i].list)}
	}
	if s == nil {
		s = openTable[E]{}
	}
	*t = s[:0]
}
