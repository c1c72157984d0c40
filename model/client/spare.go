package client

import "github.com/idemsim/idemsim/model"

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
	return model.Emptied(a)
}
