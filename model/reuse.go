package model

// Reusing a node's memory between runs (the Reset methods of [Producer],
// [Broker], [Coordinator] and [GroupCoordinator]).
//
// A node's constructor is its Reset applied to the zero node, so one
// place sets the initial state, and a reset node equals a new one field
// by field: the same values, nil where the constructor leaves nil and
// empty where it makes something empty (the world's state hash,
// scenarios/statehash.go, tells nil from empty). Memory a new node would
// not have is kept aside in fields that hold no state (a pool, a spare),
// and taken back where the new node would allocate.
//
// What Reset keeps is only memory nobody outside the node can hold once
// the run is over: lists of the node's own objects, its logs, its effect
// and observation buffers (valid only until the node's next call). What
// left the node (requests and responses carved from slabs, the records a
// producer's batches carry, which the broker's log and the observers
// share) is dropped, never reused: a previous run's message, report or
// checker may still hold it.

// emptied returns s emptied, keeping its memory; its elements are zeroed
// first, so that what they pointed to is not kept alive. Nil stays nil.
func emptied[S ~[]E, E any](s S) S {
	clear(s[:cap(s)])
	return s[:0]
}

// emptiedNonNil is emptied, but never nil: for the fields a constructor
// makes empty.
func emptiedNonNil[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return emptied(s)
}

// sized returns s with length n and zero elements, reusing its memory
// when it can; never nil (as make(S, n)).
func sized[S ~[]E, E any](s S, n int) S {
	if s == nil || cap(s) < n {
		return make(S, n)
	}
	clear(s[:cap(s)])
	return s[:n]
}

// clearedMap returns m emptied, keeping its memory, and never nil.
func clearedMap[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return M{}
	}
	clear(m)
	return m
}

// spareOf returns the memory of s, emptied, to keep aside; s itself must
// then be set as the constructor sets it.
func spareOf[S ~[]E, E any](s, spare S) S {
	if cap(s) > cap(spare) {
		return emptied(s)
	}
	return emptied(spare)
}

// listSpare keeps a reset partition state's list storage (queue, live,
// unacked) for its first appends.
type listSpare struct {
	queue, live, unacked []*pbatch
}

// grab returns list, or, when list is nil (as a new node's is) and spare
// holds storage, that storage emptied: the first append of a reset node
// reuses the previous run's array instead of growing a new one. The list
// reads the same either way; only its capacity differs.
func grab[T any](list []T, spare *[]T) []T {
	if list == nil && *spare != nil {
		list = (*spare)[:0]
		*spare = nil
	}
	return list
}

// keepLonger returns the larger of two lists' storage, emptied (its
// elements zeroed), to keep as a spare.
func keepLonger[T any](a, b []T) []T {
	if cap(b) > cap(a) {
		a = b
	}
	return emptied(a)
}
