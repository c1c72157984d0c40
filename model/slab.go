package model

// Slab hands out new values of T carved from shared arrays, so that
// messages a node sends by the dozen cost one allocation per chunk instead
// of one each. A value is never handed out twice and never taken back: it
// may leave the node (a request on the network, which can delay, duplicate
// or replay it; a response; a trace reader keeping it), and it stays the
// holder's for as long as it is held. The price is that a chunk stays in
// memory while any of its values is held. Chunks grow from slabMin to
// slabMax values, so a short run allocates little.
//
// Between runs a node's owner may vouch that nobody holds any of the
// values any more (a [Runner]-style reuse: see client.Producer.Reclaim); then
// rewind takes the first chunks back, cleared, for the next run. Only the
// first slabKept chunks are remembered for that, so a long run's chunks
// are still let go as their values are.
type Slab[T any] struct {
	free []T
	// size is the length of the last chunk allocated.
	size int
	// kept are the first chunks, for rewind; next is the index of the
	// chunk grow takes next from kept.
	kept [][]T
	next int
}

// Chunk lengths, in values, and how many chunks rewind reuses.
const (
	slabMin  = 4
	slabMax  = 64
	slabKept = 6
)

// grow starts a new chunk of at least n values.
func (s *Slab[T]) grow(n int) {
	s.size = min(max(2*s.size, slabMin), slabMax)
	want := max(s.size, n)
	if s.next < len(s.kept) && len(s.kept[s.next]) >= want {
		s.free = s.kept[s.next]
		clear(s.free)
		s.next++
		return
	}
	s.free = make([]T, want)
	if s.next < slabKept {
		s.kept = append(s.kept[:s.next], s.free)
		s.next++
	}
}

// Rewind takes back every value handed out, for the values to be handed
// out again: the caller vouches that nobody holds any of them.
func (s *Slab[T]) Rewind() {
	s.free, s.size, s.next = nil, 0, 0
}

// Seal lets go of the current chunk's unused rest: the next value comes
// from a new chunk. The values handed out are untouched; a chunk that is
// not among the kept ones is then held only by what holds its values, so
// it goes when they do (a run's end: the chunk's earlier values point to
// the run's records).
func (s *Slab[T]) Seal() { s.free = nil }

// New returns a pointer to a fresh zero T.
func (s *Slab[T]) New() *T {
	if len(s.free) == 0 {
		s.grow(1)
	}
	v := &s.free[0]
	s.free = s.free[1:]
	return v
}

// Slice returns a fresh slice of n zero values whose capacity is n, so
// that an append to it never reaches a neighbour's values.
func (s *Slab[T]) Slice(n int) []T {
	if n == 0 {
		return make([]T, 0)
	}
	if len(s.free) < n {
		s.grow(n)
	}
	v := s.free[:n:n]
	s.free = s.free[n:]
	return v
}

// Carve returns a pointer to a fresh value of s holding v.
func Carve[T any](s *Slab[T], v T) *T {
	p := s.New()
	*p = v
	return p
}
