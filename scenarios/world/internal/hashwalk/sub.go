package hashwalk

// Sub walks walk in a walk of its own, inside h's: its pointers are
// numbered from its start and its handles are listed in met (reused), in
// the order met, not numbered. It returns the walk's digest and handles,
// which a caller may keep while what walk reads does not change (a
// pending event's memo) and add to this or a later walk with
// [Hasher.Digest] instead of walking again. Since its pointers are its
// own, a pointer the sub-walk shares with the rest of h's walk is not
// told apart from a copy: walk only what does not change once made (a
// message on the wire). In a check ([NewParts]) the sub-walk's pointers
// are not listed as the part's.
func (h *Hasher) Sub(walk func(s *Hasher), met []uint64) ([2]uint64, []uint64) {
	if h.c.sub == nil {
		c := h.c
		c.sub = &Cache{opts: c.opts, specials: c.specials, info: c.info, types: c.types,
			ptrs: map[uintptr]ptrSeen{}, handles: map[uint64]uint64{}, others: map[ptrOther]uint64{}}
	}
	s := h.c.sub.Begin(h.Ctx)
	s.part, s.met = true, met[:0]
	walk(s)
	return s.Sum(), s.met
}

// Digest adds what [Hasher.Sub] returned: the digest, then the handles,
// each as [Hasher.Handle] adds it (in the walk of a part, to the part's
// list, numbered at [Parts.Sum] by rank).
func (h *Hasher) Digest(sum [2]uint64, met []uint64) {
	h.U64(sum[0])
	h.U64(sum[1])
	h.U64(uint64(len(met)))
	for _, x := range met {
		h.Handle(x)
	}
}
