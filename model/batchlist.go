package model

import "slices"

// batchList is an ordered list of a partition's producer batches that
// gives up its head in constant time and keeps its buffer: the items are
// buf[head:]. A queue that empties and fills again, or whose head is taken
// as its tail grows, reuses one array instead of sliding off the end of
// one and allocating the next.
type batchList struct {
	buf  []*pbatch
	head int
}

// all returns the items in order. The slice is valid until the list
// changes.
func (l *batchList) all() []*pbatch { return l.buf[l.head:] }

// len returns the number of items.
func (l *batchList) len() int { return len(l.buf) - l.head }

// at returns item i.
func (l *batchList) at(i int) *pbatch { return l.buf[l.head+i] }

// last returns the last item; the list must not be empty.
func (l *batchList) last() *pbatch { return l.buf[len(l.buf)-1] }

// index returns the position of b, or -1.
func (l *batchList) index(b *pbatch) int { return slices.Index(l.all(), b) }

// popFront removes the first item; the list must not be empty.
func (l *batchList) popFront() {
	l.buf[l.head] = nil
	l.head++
	if l.head == len(l.buf) {
		l.buf, l.head = l.buf[:0], 0
	}
}

// push appends b. A full buffer whose head half or more is free moves its
// items down instead of growing, so the moves cost O(1) per push amortised.
func (l *batchList) push(b *pbatch) {
	if len(l.buf) == cap(l.buf) && l.head > 0 && 2*l.head >= len(l.buf) {
		n := copy(l.buf, l.buf[l.head:])
		clear(l.buf[n:])
		l.buf, l.head = l.buf[:n], 0
	}
	l.buf = append(l.buf, b)
}

// insert puts b at position i (0 <= i <= len). At the front it takes a
// free slot before the head when there is one.
func (l *batchList) insert(i int, b *pbatch) {
	if i == 0 && l.head > 0 {
		l.head--
		l.buf[l.head] = b
		return
	}
	l.buf = slices.Insert(l.buf, l.head+i, b)
}

// remove deletes item i.
func (l *batchList) remove(i int) {
	if i == 0 {
		l.popFront()
		return
	}
	l.buf = slices.Delete(l.buf, l.head+i, l.head+i+1)
}
