package model

// Arena hands out new values of T carved from shared arrays, as slab
// does, for values that never leave their owner (a producer's batches):
// once the owner drops every value it took (a Reset), rewind zeroes the
// arrays and hands their values out again. The first arenaChunks chunks
// (4, 8, ... values, as a slab's) are remembered for the next run; a run
// that needs more carves chunks it does not remember, which are left to
// the garbage collector with the values in them, so a burst's memory
// does not outlive it.
type Arena[T any] struct {
	// kept are the remembered chunks, in the order they were carved
	// (nkept of them); cur is the one being carved while next is below
	// its length.
	kept      [arenaChunks][]T
	nkept     int
	cur, next int
	// free is the rest of the chunk being carved beyond kept, if any;
	// size is the length of the last chunk made.
	free []T
	size int
}

// arenaChunks is how many chunks an arena remembers: 4+8+16+32+64*4
// values.
const arenaChunks = 8

// New returns a pointer to a fresh zero T.
func (a *Arena[T]) New() *T {
	for a.cur < a.nkept {
		if c := a.kept[a.cur]; a.next < len(c) {
			a.next++
			return &c[a.next-1]
		}
		a.cur, a.next = a.cur+1, 0
	}
	if len(a.free) == 0 {
		a.size = min(max(2*a.size, slabMin), slabMax)
		c := make([]T, a.size)
		if a.nkept < arenaChunks {
			a.kept[a.nkept] = c
			a.nkept++
			a.cur, a.next = a.nkept-1, 1
			return &c[0]
		}
		a.free = c
	}
	v := &a.free[0]
	a.free = a.free[1:]
	return v
}

// keptValues returns the number of values in the remembered chunks.
func (a *Arena[T]) keptValues() int {
	n := 0
	for _, c := range a.kept[:a.nkept] {
		n += len(c)
	}
	return n
}

// Rewind takes every value back: the caller holds none any more. The
// remembered chunks are zeroed, so nothing they held stays reachable,
// and handed out again; the others are let go.
func (a *Arena[T]) Rewind() {
	for i := 0; i < a.nkept && i <= a.cur; i++ {
		clear(a.kept[i])
	}
	a.cur, a.next, a.free = 0, 0, nil
}
