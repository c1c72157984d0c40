package client

// popFront removes s[0] from a list of batches. A short list moves its
// items down, so that its array serves it again (a queue that empties and
// fills keeps one array); a long one slides off its head instead, as
// moving every item on each removal would make draining it quadratic.
func popFront(s []*pbatch) []*pbatch {
	const moveMax = 16
	if len(s) <= moveMax {
		n := copy(s, s[1:])
		s[n] = nil
		return s[:n]
	}
	s[0] = nil
	return s[1:]
}

// clearBatches empties a scratch list of batches, keeping its array.
func clearBatches(s []*pbatch) []*pbatch {
	clear(s)
	return s[:0]
}
