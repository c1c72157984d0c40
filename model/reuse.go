package model

// Reusing a node's memory between runs (the Reset methods of client.Producer,
// broker.Broker, coordinator.Coordinator and coordinator.GroupCoordinator).
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

// Emptied returns s emptied, keeping its memory; its elements are zeroed
// first, so that what they pointed to is not kept alive. Nil stays nil.
func Emptied[S ~[]E, E any](s S) S {
	clear(s[:cap(s)])
	return s[:0]
}

// EmptiedNonNil is Emptied, but never nil: for the fields a constructor
// makes empty.
func EmptiedNonNil[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return Emptied(s)
}

// Sized returns s with length n and zero elements, reusing its memory
// when it can; never nil (as make(S, n)).
func Sized[S ~[]E, E any](s S, n int) S {
	if s == nil || cap(s) < n {
		return make(S, n)
	}
	clear(s[:cap(s)])
	return s[:n]
}

// ClearedMap returns m emptied, keeping its memory, and never nil.
func ClearedMap[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return M{}
	}
	clear(m)
	return m
}

// SpareOf returns the memory of s, emptied, to keep aside; s itself must
// then be set as the constructor sets it.
func SpareOf[S ~[]E, E any](s, spare S) S {
	if cap(s) > cap(spare) {
		return Emptied(s)
	}
	return Emptied(spare)
}
