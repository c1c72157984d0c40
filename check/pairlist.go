package check

import "slices"

// pairList maps a pair (a, b), such as (producer id, partition), to a V:
// a list ordered by a then b, for the few pairs a run has, searched for
// every record or batch (a map keyed by the pair hashed it each time). A
// pair past the newest, the usual new one (ids are handed out in
// increasing order), goes to the end without a search.
type pairList[V any] []pairEntry[V]

// pairEntry is one pair's value; seen is false until the caller sets it.
type pairEntry[V any] struct {
	a    int64
	b    int32
	seen bool
	v    V
}

// before reports whether e's pair orders before (a, b).
func (e *pairEntry[V]) before(a int64, b int32) bool {
	return e.a < a || e.a == a && e.b < b
}

// of returns the entry of (a, b), adding an unseen one.
func (l *pairList[V]) of(a int64, b int32) *pairEntry[V] {
	s := *l
	lo, hi := 0, len(s)
	if n := len(s); n > 0 && s[n-1].before(a, b) {
		lo = n
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m].before(a, b) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(s) || s[lo].a != a || s[lo].b != b {
		*l = slices.Insert(s, lo, pairEntry[V]{a: a, b: b})
	}
	return &(*l)[lo]
}
