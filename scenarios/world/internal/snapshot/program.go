package snapshot

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// Program is what a copy of a copy needs, recorded while the first copy
// was made (CopyRecord): the copy's slabs (one array per type), the
// places in them that hold a pointer into a slab (a pointer, a slice's
// array, an interface's data word holding a pointer) with the slab it
// points into, and the places holding a map or an interface holding a
// value with references, which CopyProgram rebuilds as Copy does. A
// copy from the program allocates one array per slab, copies each with
// one typed copy, and rewrites the recorded places: it neither walks
// nor searches the graph. The copy it was recorded from must not change
// while the program is used.
type Program struct {
	slabs   []progSlab
	regions []region // the slabs as regions, sorted by address: slabs[k] is regions[k]
	relocs  []reloc
	others  []other
	rootT   reflect.Type
	root    int32   // the root's slab
	rootOff uintptr // and its offset in it, in bytes
	stats   Stats   // the recorded copy's
}

// progSlab is one slab of the recorded copy.
type progSlab struct {
	pl   *plan
	n    int
	base unsafe.Pointer
}

// reloc is a pointer at byte off of slab slab that points into slab tgt.
type reloc struct {
	slab int32
	off  uint32
	tgt  int32
}

// other is a map or an interface of type t at byte off of slab slab.
type other struct {
	slab int32
	off  uint32
	t    reflect.Type
}

// Sizes of a program's records, for its Bytes.
const (
	relocSize  = int(unsafe.Sizeof(reloc{}))
	otherSize  = int(unsafe.Sizeof(other{}))
	slabSize   = int(unsafe.Sizeof(progSlab{}) + unsafe.Sizeof(region{}))
	headerSize = int(unsafe.Sizeof(Program{}))
)

// Stats returns the recorded copy's statistics.
func (p *Program) Stats() Stats { return p.stats }

// otherKind is how a recorded copy's map or interface is copied again.
type otherKind uint8

const (
	otherNone otherKind = iota // nothing to do: nil, shared, or no references
	otherPtr                   // an interface holding a pointer: translate its data word
	otherFix                   // a map, or an interface holding a value: rebuild (fix)
)

// otherKind classifies v (in the copy, still holding the source's
// references) as fix will treat it.
func (c *Copier) otherKind(v reflect.Value) otherKind {
	switch v.Kind() {
	case reflect.Map:
		if !v.IsNil() {
			return otherFix
		}
	case reflect.Interface:
		if v.IsNil() {
			return otherNone
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer {
			if e.IsNil() || c.shared[e.Type().Elem()] || e.Type().Elem().Size() == 0 {
				return otherNone
			}
			return otherPtr
		}
		if c.hasPtrs(e.Type()) {
			return otherFix
		}
	}
	return otherNone
}

// reloc records the pointer at a (in slab rec of the copy), just
// translated: it points into translate's last root's slab.
func (p *Program) reloc(c *Copier, rec int32, a unsafe.Pointer) {
	if c.st.last == nil {
		return // translate failed: its error ends the copy
	}
	p.relocs = append(p.relocs, reloc{slab: rec, off: uint32(uintptr(a) - uintptr(c.st.slabs[rec].base)), tgt: c.st.last.slab})
}

// other records the map or interface of type t at a (in slab rec).
func (p *Program) other(c *Copier, rec int32, a unsafe.Pointer, t reflect.Type) {
	p.others = append(p.others, other{slab: rec, off: uint32(uintptr(a) - uintptr(c.st.slabs[rec].base)), t: t})
}

// finish takes the copy's slabs, numbers them by address, finds the
// root (out, of type *rootT) in them, and returns the program's bytes.
func (p *Program) finish(c *Copier, rootT reflect.Type, out any) int {
	slabs := c.st.slabs
	order := make([]int32, len(slabs)) // order[new] = old
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(uintptr(slabs[a].base), uintptr(slabs[b].base)) })
	num := make([]int32, len(slabs)) // num[old] = new
	p.slabs, p.regions = make([]progSlab, len(slabs)), make([]region, len(slabs))
	for k, o := range order {
		s := &slabs[o]
		num[o] = int32(k)
		p.slabs[k] = progSlab{pl: s.pl, n: s.n, base: s.base}
		start := uintptr(s.base)
		p.regions[k] = region{start: start, end: start + uintptr(s.n)*s.pl.size, sp: s.base, pl: s.pl, n: s.n, root: k, slab: int32(k)}
	}
	for i := range p.relocs {
		p.relocs[i].slab, p.relocs[i].tgt = num[p.relocs[i].slab], num[p.relocs[i].tgt]
	}
	for i := range p.others {
		p.others[i].slab = num[p.others[i].slab]
	}
	p.rootT, p.root = rootT, -1
	r := uintptr(reflect.ValueOf(out).UnsafePointer())
	for k := range p.regions {
		if r >= p.regions[k].start && r < p.regions[k].end {
			p.root, p.rootOff = int32(k), r-p.regions[k].start
		}
	}
	return headerSize + len(p.relocs)*relocSize + len(p.others)*otherSize + len(p.slabs)*slabSize
}

// CopyProgram returns a copy of the copy p was recorded from, as Copy
// of it would (the same sharing; the statistics of the recorded copy,
// but for Maps, this copy's, and Program, 0).
func (c *Copier) CopyProgram(p *Program) (any, Stats, error) {
	if p == nil || p.root < 0 {
		return nil, Stats{}, fmt.Errorf("snapshot: no program to copy from (a copy made from a program, or one used up, is not copied again)")
	}
	st := &c.st
	c.reset()
	defer c.release()
	st.regions = append(st.regions, p.regions...)
	for k := range p.slabs {
		s := &p.slabs[k]
		nb := reflect.MakeSlice(s.pl.slice(), s.n, s.n).UnsafePointer()
		typedCopy(s.pl, nb, s.base, s.n)
		st.regions[k].newBase = nb
	}
	rs := st.regions
	for _, r := range p.relocs {
		q := (*unsafe.Pointer)(unsafe.Add(rs[r.slab].newBase, uintptr(r.off)))
		t := &rs[r.tgt]
		*q = unsafe.Add(t.newBase, uintptr(*q)-t.start)
	}
	for _, o := range p.others {
		c.fix(reflect.NewAt(o.t, unsafe.Add(rs[o.slab].newBase, uintptr(o.off))).Elem())
	}
	stats := p.stats
	stats.Maps, stats.Program = st.stats.Maps, 0
	if st.err != nil {
		return nil, stats, st.err
	}
	return reflect.NewAt(p.rootT, unsafe.Add(rs[p.root].newBase, p.rootOff)).Interface(), stats, nil
}
