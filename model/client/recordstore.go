package client

import "github.com/idemsim/idemsim/model"

// recordStore holds the records of one partition's producer batches: each
// batch's Records is a run of slots in a shared chunk, so a record costs
// no allocation of its own and a backlog keeps 48 bytes per record, not
// a growing slice per batch.
//
// Ownership: a batch's Records leaves the producer in its produce
// requests, and the broker's log, the observers and the network may hold
// it for the rest of the run. A slot is therefore written once, when its
// record is added, and never again; every slice the store hands out has
// its capacity equal to its length, so neither the store nor anyone else
// can write behind it. Only the slot just past the chunk's used part is
// ever written, and no slice covers it.
//
// As a slab, the store can rewind when its owner vouches nobody holds
// its records any more ([Producer.Reclaim]): its first chunks are then
// reused, cleared, by the next run. Only the first recordKeepers of a
// producer's partitions to take a chunk keep theirs: what a producer
// holds for the next run is bounded (about 24 KB a keeper), not a
// fixed cost per partition.
type recordStore struct {
	// buf is the current chunk: its used slots, with the free ones in
	// its capacity.
	buf []model.Record
	// kept are the first chunks, for rewind; next is the index of the
	// chunk a new one is taken from.
	kept [][]model.Record
	next int
}

// Chunk lengths, in records, how many chunks rewind reuses, and how many
// of a producer's partitions keep chunks for it.
const (
	recordChunkMin  = 8
	recordChunkMax  = 256
	recordChunkKept = 6
	recordKeepers   = 4
)

// chunk returns an empty chunk of capacity at least n, a kept one when
// it is large enough. *keepers counts the producer's stores that keep
// chunks; s becomes one when it keeps its first, if fewer than
// recordKeepers are.
func (s *recordStore) chunk(size int, keepers *int) []model.Record {
	if s.next < len(s.kept) && cap(s.kept[s.next]) >= size {
		c := s.kept[s.next][:0]
		clear(c[:cap(c)])
		s.next++
		return c
	}
	c := make([]model.Record, 0, size)
	if s.next < recordChunkKept && (len(s.kept) > 0 || *keepers < recordKeepers) {
		if len(s.kept) == 0 {
			*keepers++
		}
		s.kept = append(s.kept[:s.next], c)
		s.next++
	}
	return c
}

// rewind takes back every record handed out: the caller vouches that
// nobody holds any of them.
func (s *recordStore) rewind() {
	s.buf, s.next = nil, 0
}

// add returns recs with r appended. recs must be nil or a slice the store
// returned. The batch whose records end the used part of the chunk (the
// partition's newest batch, the only one that grows) grows in place;
// any other batch, or one that no longer fits, moves to fresh slots.
// keepers is the producer's count of stores that keep chunks (see chunk).
func (s *recordStore) add(recs []model.Record, r model.Record, keepers *int) []model.Record {
	n := len(recs)
	used := len(s.buf)
	inPlace := n == 0 || n <= used && &s.buf[used-n] == &recs[0]
	if !inPlace || used == cap(s.buf) {
		if cap(s.buf)-used < n+1 {
			size := min(max(2*cap(s.buf), recordChunkMin), recordChunkMax)
			s.buf = s.chunk(max(size, 2*(n+1)), keepers)
		}
		s.buf = append(s.buf, recs...)
	}
	s.buf = append(s.buf, r)
	end := len(s.buf)
	return s.buf[end-n-1 : end : end]
}
