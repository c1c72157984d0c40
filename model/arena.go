package model

// arena hands out new values of T carved from shared arrays, as slab
// does, for values that never leave their owner (a producer's batches):
// once the owner drops every value it took (a Reset), rewind zeroes the
// arrays and hands their values out again. A run that needs more keeps
// carving chunks of slabMax values, but only the first arenaKeep values'
// chunks are remembered for the next run; the others are left to the
// garbage collector with the values in them, so a burst's memory does
// not outlive it.
type arena[T any] struct {
	// kept are the remembered chunks, in the order they were carved;
	// cur is the one being carved when next < len(kept[cur]).
	kept      [][]T
	cur, next int
	// free is the rest of the chunk being carved beyond kept, if any;
	// size is the length of the last chunk made.
	free []T
	size int
}

// arenaKeep is how many values' chunks an arena remembers.
const arenaKeep = 1024

// new returns a pointer to a fresh zero T.
func (a *arena[T]) new() *T {
	for a.cur < len(a.kept) {
		if c := a.kept[a.cur]; a.next < len(c) {
			a.next++
			return &c[a.next-1]
		}
		a.cur, a.next = a.cur+1, 0
	}
	if len(a.free) == 0 {
		a.size = min(max(2*a.size, slabMin), slabMax)
		c := make([]T, a.size)
		if a.keptValues()+a.size <= arenaKeep {
			a.kept = append(a.kept, c)
			a.cur, a.next = len(a.kept)-1, 1
			return &c[0]
		}
		a.free = c
	}
	v := &a.free[0]
	a.free = a.free[1:]
	return v
}

// keptValues returns the number of values in the remembered chunks.
func (a *arena[T]) keptValues() int {
	n := 0
	for _, c := range a.kept {
		n += len(c)
	}
	return n
}

// rewind takes every value back: the caller holds none any more. The
// remembered chunks are zeroed, so nothing they held stays reachable,
// and handed out again; the others are let go.
func (a *arena[T]) rewind() {
	for i := 0; i < len(a.kept) && i <= a.cur; i++ {
		clear(a.kept[i])
	}
	a.cur, a.next, a.free = 0, 0, nil
}
