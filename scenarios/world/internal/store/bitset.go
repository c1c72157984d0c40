package store

import "math/bits"

// Bitset is a set of non-negative message numbers, one bit each: an
// application's resolved and abandoned records, which a map would hold
// at tens of bytes per record. Its length depends only on its largest
// member, so equal sets are equal slices (state hashes walk it).
type Bitset []uint64

// set adds n.
func (b *Bitset) Set(n int64) {
	w := int(n >> 6)
	if w >= len(*b) {
		*b = append(*b, make([]uint64, w+1-len(*b))...)
	}
	(*b)[w] |= 1 << (n & 63)
}

// has reports whether n is in the set.
func (b Bitset) Has(n int64) bool {
	w := int(n >> 6)
	return n >= 0 && w < len(b) && b[w]&(1<<(n&63)) != 0
}

// each calls f for every member, in increasing order.
func (b Bitset) Each(f func(n int64)) {
	for i, w := range b {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			f(int64(i)<<6 | int64(t))
			w &^= 1 << t
		}
	}
}
