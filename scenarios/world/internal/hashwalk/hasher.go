package hashwalk

import (
	"math/bits"
	"reflect"
)

// Hasher is one walk in progress: the two lanes, and the numbering of
// the pointers and handles it has met.
type Hasher struct {
	a, b uint64
	// ptrs numbers the pointers met so far (with their types: a struct
	// and its first field share an address); handles renumbers
	// reply-route handles in the order met. Both are made on first use.
	ptrs    map[uintptr]ptrSeen
	handles map[uint64]uint64
	c       *Cache
	// Ctx is the caller's, for its special walks.
	Ctx any
	// part: the walk of a part ([Parts]); its handles are listed in
	// met, in the order met, and hashed only by their place there.
	part bool
	met  []uint64
}

type ptrSeen struct {
	t reflect.Type
	n uint64
}

type ptrOther struct {
	p uintptr
	t reflect.Type
}

// Begin starts a walk whose special walks see ctx, in c's maps (emptied:
// a Cache serves one walk at a time).
func (c *Cache) Begin(ctx any) *Hasher {
	clear(c.ptrs)
	clear(c.handles)
	clear(c.others)
	c.h = Hasher{ptrs: c.ptrs, handles: c.handles, c: c, Ctx: ctx}
	return &c.h
}

const (
	prime1 = 0x9E3779B185EBCA87
	prime2 = 0xC2B2AE3D27D4EB4F
	prime3 = 0x165667B19E3779F9
)

func round(acc, x uint64) uint64 {
	acc += x * prime2
	acc = bits.RotateLeft64(acc, 31)
	return acc * prime1
}

// U64 adds x.
func (h *Hasher) U64(x uint64) {
	h.a = round(h.a, x)
	h.b = round(h.b^prime3, x^0x5bd1e9955bd1e995)
}

// I64 adds x.
func (h *Hasher) I64(x int64) { h.U64(uint64(x)) }

// Str adds s: its length, then its bytes eight at a time.
func (h *Hasher) Str(s string) {
	h.U64(uint64(len(s)))
	var w uint64
	for i := 0; i < len(s); i++ {
		w = w<<8 | uint64(s[i])
		if i%8 == 7 {
			h.U64(w)
			w = 0
		}
	}
	h.U64(w)
}

func avalanche(x uint64) uint64 {
	x ^= x >> 33
	x *= prime2
	x ^= x >> 29
	x *= prime3
	x ^= x >> 32
	return x
}

// Sum returns the fingerprint of what was added.
func (h *Hasher) Sum() [2]uint64 { return [2]uint64{avalanche(h.a), avalanche(h.b ^ prime1)} }

// Handle adds a reply-route handle by the order the walk meets it, or,
// in the walk of a part, a mark (0 stays 0: no handle), the handle itself
// going to the part's list ([Parts]).
func (h *Hasher) Handle(x uint64) {
	if h.part {
		if x != 0 {
			h.met = append(h.met, x)
			x = 1
		}
		h.U64(x)
		return
	}
	if h.handles == nil {
		h.handles = map[uint64]uint64{}
	}
	c, ok := h.handles[x]
	if !ok {
		c = uint64(len(h.handles))
		h.handles[x] = c
	}
	h.U64(c)
}

// HandleNumber returns the number the walk gave handle x, if it met it.
func (h *Hasher) HandleNumber(x uint64) (uint64, bool) {
	c, ok := h.handles[x]
	return c, ok
}

// BoolBits packs bs into a word, bs[i] at bit i.
func BoolBits(bs ...bool) uint64 {
	var x uint64
	for i, b := range bs {
		if b {
			x |= 1 << i
		}
	}
	return x
}
