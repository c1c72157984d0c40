package check

// Reusing memory between runs ([Suite.Reset]) and between calls.
//
// A reset field is left as its constructor would leave it, and the
// constructor is reset itself: a slice is truncated, never nil (an empty
// literal allocates nothing), a map cleared, never nil. A reset suite
// and a new one are then alike field by field, which the world's state
// hash (scenarios/statehash.go, which tells a nil slice from an empty
// one) relies on when a sweep reuses one suite.

// truncated returns s emptied, keeping its memory, and never nil. The
// elements it held are zeroed first, so that what they point to (records,
// violation texts) is not kept alive.
func truncated[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	clear(s)
	return s[:0]
}

// scratchKeep is the most elements a scratch list keeps once a run's
// verdicts are in ([Suite.Finish]). A list that grew past it (one
// element per record or per transaction of a big run: the records one
// marker committed, INV-TXN's lists at the end) is released then, so
// that a suite reused by a sweep holds what its runs hold, not the
// largest scratch any of them needed. Below it the memory is kept and a
// run of the usual size allocates nothing for its scratch.
const scratchKeep = 4096

// trimmed returns s emptied: keeping its memory when its capacity is at
// most scratchKeep, else nil (the next reset makes it empty and non-nil,
// as truncated does).
func trimmed[S ~[]E, E any](s S) S {
	if cap(s) > scratchKeep {
		return nil
	}
	clear(s)
	return s[:0]
}

// cleared returns m emptied, keeping its memory, and never nil.
func cleared[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return M{}
	}
	clear(m)
	return m
}

// truncatedAll returns ss emptied, each of its slices truncated in place
// (they stay behind its length, for grown to reuse).
func truncatedAll[S ~[]E, E any](ss []S) []S {
	for i := range ss {
		ss[i] = truncated(ss[i])
	}
	if ss == nil {
		return []S{}
	}
	return ss[:0]
}

// grown returns ss with an element at index p, growing it with empty
// slices: those left behind its length by truncatedAll when there are,
// else new empty ones.
func grown[S ~[]E, E any](ss []S, p int) []S {
	for len(ss) <= p {
		if len(ss) < cap(ss) {
			ss = ss[:len(ss)+1]
			ss[len(ss)-1] = truncated(ss[len(ss)-1])
		} else {
			ss = append(ss, S{})
		}
	}
	return ss
}

// resized returns s with length n, reusing its memory when it can; the
// elements are not cleared.
func resized[S ~[]E, E any](s S, n int) S {
	if cap(s) >= n {
		return s[:n]
	}
	return make(S, n)
}

// insertedAt returns s with a slot opened at index i (s[i:] moved up one)
// and the element that was in storage just behind s's length: an entry
// an earlier run left there, whose memory the caller reuses for the new
// one at s[i] (the zero element when s was full).
func insertedAt[S ~[]E, E any](s S, i int) (S, E) {
	n := len(s)
	var spare E
	if n < cap(s) {
		s = s[:n+1]
		spare = s[n]
	} else {
		s = append(s, spare)
	}
	copy(s[i+1:], s[i:n])
	return s, spare
}
