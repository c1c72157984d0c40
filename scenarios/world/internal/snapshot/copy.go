package snapshot

import (
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// Copier deep-copies object graphs. It keeps per-type facts between
// copies (a copy plan per type: where a value's pointers, slices, maps
// and interfaces lie) and its buffers; it is not safe for concurrent use.
type Copier struct {
	shared map[reflect.Type]bool
	ptrs   map[reflect.Type]bool  // whether a type holds pointers
	plans  map[reflect.Type]*plan // copy plans, per type
	st     state
	keys   []regionKey // merge's buffer
}

// Stats are what the last copy did.
type Stats struct {
	// Regions is the number of allocations of the source copied; Bytes
	// their size; Slabs the number of allocations the copy made for them
	// (one per type: a copy's values of one type lie in one array);
	// Maps the number of maps rebuilt; Funcs the function values met
	// (kept as they are); Program the bytes of the copy's Program, when
	// one is recorded (CopyRecord).
	Regions, Bytes, Slabs, Maps, Funcs, Program int
}

// New returns a copier that leaves the shared types shared: a pointer of
// type *T with T among them, or an interface holding one, is kept as it
// is (configuration read only, caches, sinks outside the copied state).
func New(shared ...reflect.Type) *Copier {
	c := &Copier{shared: map[reflect.Type]bool{}, ptrs: map[reflect.Type]bool{}, plans: map[reflect.Type]*plan{}}
	c.st = state{seen: map[visitKey]bool{}, maps: map[uintptr]reflect.Value{}, mapSeen: map[uintptr]bool{}}
	for _, t := range shared {
		c.shared[t] = true
	}
	return c
}

// Copy is c.Copy(root) typed.
func Copy[T any](c *Copier, root *T) (*T, Stats, error) {
	x, st, err := c.Copy(root)
	if err != nil {
		return nil, st, err
	}
	return x.(*T), st, nil
}

// plan is a type's copy plan: the places in a value of it (flattened
// through its structs and arrays) that hold references.
type plan struct {
	t      reflect.Type
	size   uintptr
	ptrs   bool // values hold references (slots is not empty)
	direct bool // an interface holds a value in its data word (direct)
	slots  []slot
	sliceT reflect.Type // []t, made when first needed
	// gen and slab: this plan's slab in the copy numbered gen.
	gen, slab int
}

// slotKind is what a slot holds.
type slotKind uint8

const (
	sPtr   slotKind = iota // a pointer
	sSlice                 // a slice
	sOther                 // a map, an interface, a function, a channel: by reflection
)

// slot is a reference at offset off of a value.
type slot struct {
	off    uintptr
	kind   slotKind
	t      reflect.Type // the slot's type
	elem   *plan        // sPtr: the pointee's plan; sSlice: the element's
	shared bool         // sPtr: to a shared type, kept as it is
}

// ptrSize is a pointer's size: an interface's data word is its second.
const ptrSize = unsafe.Sizeof(uintptr(0))

// ifaceData returns the data word of interface v (addressable).
func ifaceData(v reflect.Value) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(v.UnsafeAddr()), ptrSize))
}

// direct reports whether an interface holds a value of type t in its
// data word itself (a pointer-shaped type, as the compiler decides it)
// rather than a pointer to it.
func direct(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Struct:
		return t.NumField() == 1 && direct(t.Field(0).Type)
	case reflect.Array:
		return t.Len() == 1 && direct(t.Elem())
	}
	return false
}

// sliceHeader is a slice's memory.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// planOf returns t's copy plan, made once.
func (c *Copier) planOf(t reflect.Type) *plan {
	if pl, ok := c.plans[t]; ok {
		return pl
	}
	pl := &plan{t: t, size: t.Size(), ptrs: c.hasPtrs(t), direct: direct(t)}
	c.plans[t] = pl // before the slots: a pointer to t in t finds it
	if pl.ptrs {
		c.addSlots(pl, t, 0)
	}
	return pl
}

// addSlots adds the references a value of type t at offset off holds.
func (c *Copier) addSlots(pl *plan, t reflect.Type, off uintptr) {
	switch t.Kind() {
	case reflect.Pointer:
		pl.slots = append(pl.slots, slot{off: off, kind: sPtr, t: t, elem: c.planOf(t.Elem()), shared: c.shared[t.Elem()]})
	case reflect.Slice:
		pl.slots = append(pl.slots, slot{off: off, kind: sSlice, t: t, elem: c.planOf(t.Elem())})
	case reflect.Array:
		if et := t.Elem(); c.hasPtrs(et) {
			for i := range t.Len() {
				c.addSlots(pl, et, off+uintptr(i)*et.Size())
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); c.hasPtrs(f.Type) {
				c.addSlots(pl, f.Type, off+f.Offset)
			}
		}
	case reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		pl.slots = append(pl.slots, slot{off: off, kind: sOther, t: t})
	}
}

// slice returns []t.
func (pl *plan) slice() reflect.Type {
	if pl.sliceT == nil {
		pl.sliceT = reflect.SliceOf(pl.t)
	}
	return pl.sliceT
}

// region is one allocation the source graph reaches: a pointed-to
// value, or the backing array of slices, from start to end.
type region struct {
	start, end uintptr
	sp         unsafe.Pointer // start, as a pointer
	pl         *plan          // the value's plan (the element's for an array)
	n          int            // an array's length; -1 for a single value
	// root is the index of the region that contains this one (itself
	// for a root); newBase the new copy's address (roots only), within
	// slab number slab.
	root    int
	newBase unsafe.Pointer
	slab    int32
}

// regionKey is a region's place in merge's sort.
type regionKey struct {
	start, end uintptr
	i          int
}

type visitKey struct {
	p  uintptr
	pl *plan
	n  int
}

type state struct {
	regions, spare []region
	seen           map[visitKey]bool
	maps           map[uintptr]reflect.Value // old map pointer -> new map (pass 2)
	mapSeen        map[uintptr]bool
	stats          Stats
	err            error
	last           *region // translate's last root
	slabs          []slabAlloc
	gen            int
	prog           *Program // what Copy records, nil when it records nothing
}

// slabAlloc is one allocation of a copy: every root region of one plan,
// one after another, in the order of their addresses.
type slabAlloc struct {
	pl   *plan
	n    int            // elements
	base unsafe.Pointer // the copy's
	used int            // elements carved so far
}

// Copy returns a deep copy of *root (root must be a non-nil pointer):
// every pointer, slice, map and interface reached is copied once, so
// that two references that share memory in the source (two pointers to
// one value, a pointer into a struct or an array, slices of one backing
// array) share it in the copy. Function values are kept as they are
// (the caller rebinds those that close over the copied state), strings
// are shared (immutable), and the Shared types are not copied. The
// copy's values of one type lie in one array of that type (a slab), in
// the order of their addresses in the source.
func (c *Copier) Copy(root any) (any, Stats, error) {
	return c.copy(root, nil)
}

// CopyRecord is Copy that also returns the copy's Program, recorded
// while the copy is made: what CopyProgram needs to copy the copy again
// without walking it. The copy must not change while the program is
// used.
func (c *Copier) CopyRecord(root any) (any, *Program, Stats, error) {
	p := &Program{}
	out, st, err := c.copy(root, p)
	if err != nil {
		return nil, nil, st, err
	}
	return out, p, st, nil
}

// Record is c.CopyRecord(root) typed.
func Record[T any](c *Copier, root *T) (*T, *Program, Stats, error) {
	x, p, st, err := c.CopyRecord(root)
	if err != nil {
		return nil, nil, st, err
	}
	return x.(*T), p, st, nil
}

// FromProgram is c.CopyProgram(p) typed (T is the recorded root's type).
func FromProgram[T any](c *Copier, p *Program) (*T, Stats, error) {
	x, st, err := c.CopyProgram(p)
	if err != nil {
		return nil, st, err
	}
	return x.(*T), st, nil
}

func (c *Copier) copy(root any, prog *Program) (any, Stats, error) {
	v := reflect.ValueOf(root)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, Stats{}, fmt.Errorf("snapshot: Copy of a %T", root)
	}
	st := &c.st
	c.reset()
	st.prog = prog
	defer c.release()
	c.collectPtr(v)
	if st.err != nil {
		return nil, st.stats, st.err
	}
	if err := c.merge(); err != nil {
		return nil, st.stats, err
	}
	// One slab per plan, holding its roots in order.
	st.gen++
	st.slabs = st.slabs[:0]
	for i := range st.regions {
		r := &st.regions[i]
		if r.root != i {
			continue
		}
		if pl := r.pl; pl.gen != st.gen {
			pl.gen, pl.slab = st.gen, len(st.slabs)
			st.slabs = append(st.slabs, slabAlloc{pl: pl})
		}
		r.slab = int32(r.pl.slab)
		st.slabs[r.slab].n += max(r.n, 1)
	}
	for k := range st.slabs {
		s := &st.slabs[k]
		s.base = reflect.MakeSlice(s.pl.slice(), s.n, s.n).UnsafePointer()
	}
	st.stats.Slabs = len(st.slabs)
	// Carve the roots and copy their bytes.
	for i := range st.regions {
		r := &st.regions[i]
		if r.root != i {
			continue
		}
		s, n := &st.slabs[r.slab], max(r.n, 1)
		r.newBase = unsafe.Add(s.base, uintptr(s.used)*s.pl.size)
		typedCopy(s.pl, r.newBase, r.sp, n)
		s.used += n
		st.stats.Regions++
		st.stats.Bytes += int(r.end - r.start)
	}
	// Fix up the references the copies hold.
	rec := int32(-1)
	for i := range st.regions {
		r := &st.regions[i]
		if r.root != i || !r.pl.ptrs {
			continue
		}
		if prog != nil {
			rec = r.slab
		}
		for j := range max(r.n, 1) {
			c.fixAt(unsafe.Add(r.newBase, uintptr(j)*r.pl.size), r.pl, rec)
		}
	}
	if st.err != nil {
		return nil, st.stats, st.err
	}
	x := reflect.NewAt(v.Type().Elem(), c.translate(v.UnsafePointer())).Interface()
	if prog != nil {
		st.stats.Program = prog.finish(c, v.Type().Elem(), x)
		prog.stats = st.stats
	}
	return x, st.stats, nil
}

// reset readies the buffers for a copy.
func (c *Copier) reset() {
	st := &c.st
	clear(st.seen)
	clear(st.maps)
	clear(st.mapSeen)
	st.regions, st.stats, st.err, st.last, st.prog = st.regions[:0], Stats{}, nil, nil, nil
}

// release lets the source and the copy go: the buffers keep no pointer.
func (c *Copier) release() {
	st := &c.st
	clear(st.maps)
	clear(st.regions)
	clear(st.spare[:cap(st.spare)])
	clear(st.slabs)
	st.last, st.prog = nil, nil
}

// typedCopy copies n values of plan pl from src to dst, as the runtime
// copies typed memory (with the collector's write barriers).
func typedCopy(pl *plan, dst, src unsafe.Pointer, n int) {
	hd, hs := sliceHeader{dst, n, n}, sliceHeader{src, n, n}
	reflect.Copy(reflect.NewAt(pl.slice(), unsafe.Pointer(&hd)).Elem(), reflect.NewAt(pl.slice(), unsafe.Pointer(&hs)).Elem())
}

// hasPtrs reports whether values of t hold references to copy.
func (c *Copier) hasPtrs(t reflect.Type) bool {
	if b, ok := c.ptrs[t]; ok {
		return b
	}
	c.ptrs[t] = true // a recursive type holds pointers
	b := false
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Chan, reflect.UnsafePointer:
		b = true
	case reflect.Array:
		b = t.Len() > 0 && c.hasPtrs(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if c.hasPtrs(t.Field(i).Type) {
				b = true
				break
			}
		}
	case reflect.Func:
		b = true // counted, kept
	}
	c.ptrs[t] = b
	return b
}

// addRegion notes an allocation; it reports whether it is new.
// An array of n values has n >= 0; a single value n = -1.
func (c *Copier) addRegion(sp unsafe.Pointer, pl *plan, n int) bool {
	st := &c.st
	p := uintptr(sp)
	k := visitKey{p, pl, n}
	if st.seen[k] {
		return false
	}
	st.seen[k] = true
	if size := pl.size * uintptr(max(n, 1)); size > 0 {
		st.regions = append(st.regions, region{start: p, end: p + size, sp: sp, pl: pl, n: n})
	}
	return true
}

// collectAt collects what the value of plan pl at p reaches.
func (c *Copier) collectAt(p unsafe.Pointer, pl *plan) {
	for i := range pl.slots {
		s := &pl.slots[i]
		a := unsafe.Add(p, s.off)
		switch s.kind {
		case sPtr:
			if q := *(*unsafe.Pointer)(a); q != nil && !s.shared && c.addRegion(q, s.elem, -1) && s.elem.ptrs {
				c.collectAt(q, s.elem)
			}
		case sSlice:
			if h := (*sliceHeader)(a); h.data != nil && h.cap > 0 && c.addRegion(h.data, s.elem, h.cap) && s.elem.ptrs {
				for j := range h.cap {
					c.collectAt(unsafe.Add(h.data, uintptr(j)*s.elem.size), s.elem)
				}
			}
		default:
			c.collect(reflect.NewAt(s.t, a).Elem())
		}
	}
}

// collectPtr collects what pointer v reaches.
func (c *Copier) collectPtr(v reflect.Value) {
	if v.IsNil() || c.shared[v.Type().Elem()] {
		return
	}
	pl := c.planOf(v.Type().Elem())
	if p := v.UnsafePointer(); c.addRegion(p, pl, -1) && pl.ptrs {
		c.collectAt(p, pl)
	}
}

// collect collects what value v (addressable) reaches.
func (c *Copier) collect(v reflect.Value) {
	st := &c.st
	switch v.Kind() {
	case reflect.Pointer:
		c.collectPtr(v)
	case reflect.Slice, reflect.Array, reflect.Struct:
		c.collectAt(unsafe.Pointer(v.UnsafeAddr()), c.planOf(v.Type()))
	case reflect.Map:
		if v.IsNil() {
			return
		}
		p := v.Pointer()
		if st.mapSeen[p] {
			return
		}
		st.mapSeen[p] = true
		kp, vp := c.hasPtrs(v.Type().Key()), c.hasPtrs(v.Type().Elem())
		if !kp && !vp {
			return
		}
		it := v.MapRange()
		for it.Next() {
			if kp {
				c.collectCopy(it.Key())
			}
			if vp {
				c.collectCopy(it.Value())
			}
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if pl := c.planOf(e.Type()); pl.direct {
			c.collectCopy(e)
		} else if pl.ptrs {
			// The value the interface holds, read in place: its data
			// word points to it (it is never changed in place).
			c.collectAt(ifaceData(v), pl)
		}
	case reflect.Func:
		if !v.IsNil() {
			st.stats.Funcs++
		}
	case reflect.Chan, reflect.UnsafePointer:
		if !v.IsNil() && st.err == nil {
			st.err = fmt.Errorf("snapshot: cannot copy a %s", v.Type())
		}
	}
}

// collectCopy collects what a non-addressable value reaches.
func (c *Copier) collectCopy(v reflect.Value) {
	if v.Kind() == reflect.Pointer {
		c.collectPtr(v)
		return
	}
	if !c.hasPtrs(v.Type()) {
		return
	}
	x := reflect.New(v.Type()).Elem()
	x.Set(v)
	c.collect(x)
}

// merge sorts the regions and makes each one that lies within another
// a part of it. Overlapping backing arrays of one element type are
// merged into one.
func (c *Copier) merge() error {
	st := &c.st
	keys := c.keys[:0]
	for i := range st.regions {
		keys = append(keys, regionKey{st.regions[i].start, st.regions[i].end, i})
	}
	slices.SortFunc(keys, func(a, b regionKey) int {
		if a.start != b.start {
			if a.start < b.start {
				return -1
			}
			return 1
		}
		// The larger first, so that it is the root.
		if a.end != b.end {
			if a.end > b.end {
				return -1
			}
			return 1
		}
		return 0
	})
	c.keys = keys
	rs := slices.Grow(st.spare[:0], len(keys))
	for _, k := range keys {
		rs = append(rs, st.regions[k.i])
	}
	st.regions, st.spare = rs, st.regions
	cur := -1
	for i := range rs {
		r := &rs[i]
		if cur >= 0 && r.start < rs[cur].end {
			if r.end > rs[cur].end {
				root := &rs[cur]
				if root.n < 0 || r.n < 0 || root.pl != r.pl {
					return fmt.Errorf("snapshot: a %s and a %s overlap", root.pl.t, r.pl.t)
				}
				root.end = r.end
				root.n = int((root.end - root.start) / root.pl.size)
			}
			r.root = cur
			continue
		}
		cur = i
		r.root = i
	}
	return nil
}

// translate returns the copy's address of source address p.
func (c *Copier) translate(sp unsafe.Pointer) unsafe.Pointer {
	rs, p := c.st.regions, uintptr(sp)
	if r := c.st.last; r != nil && p >= r.start && p < r.end {
		return unsafe.Add(r.newBase, p-r.start) // the last root hit again
	}
	i, _ := slices.BinarySearchFunc(rs, p, func(r region, p uintptr) int {
		if r.start <= p {
			return -1
		}
		return 1
	})
	// rs[i-1] is the last region starting at or before p.
	for i--; i >= 0; i-- {
		r := &rs[rs[i].root]
		if p >= r.start && p < r.end {
			c.st.last = r
			return unsafe.Add(r.newBase, p-r.start)
		}
		if rs[i].root == i {
			break
		}
	}
	if c.st.err == nil {
		c.st.err = fmt.Errorf("snapshot: a pointer %p outside every region", sp)
	}
	return sp
}

// fixAt rewrites the references the value of plan pl at p (in the
// copy) holds to their copies. With rec >= 0 (p in slab rec) it records
// them in the copy's program (CopyRecord).
func (c *Copier) fixAt(p unsafe.Pointer, pl *plan, rec int32) {
	for i := range pl.slots {
		s := &pl.slots[i]
		a := unsafe.Add(p, s.off)
		switch s.kind {
		case sPtr:
			if q := (*unsafe.Pointer)(a); *q != nil && !s.shared && s.elem.size > 0 {
				*q = c.translate(*q)
				if rec >= 0 {
					c.st.prog.reloc(c, rec, a)
				}
			}
		case sSlice:
			if h := (*sliceHeader)(a); h.data != nil && h.cap > 0 && s.elem.size > 0 {
				h.data = c.translate(h.data)
				if rec >= 0 {
					c.st.prog.reloc(c, rec, a)
				}
			}
		default:
			v := reflect.NewAt(s.t, a).Elem()
			if rec < 0 {
				c.fix(v)
				continue
			}
			switch c.otherKind(v) {
			case otherPtr: // an interface holding a pointer: its data word
				c.fix(v)
				c.st.prog.reloc(c, rec, unsafe.Add(a, ptrSize))
			case otherFix:
				c.fix(v)
				c.st.prog.other(c, rec, a, s.t)
			}
		}
	}
}

// fix rewrites the references v (addressable, in the copy) holds to
// their copies.
func (c *Copier) fix(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Struct:
		c.fixAt(unsafe.Pointer(v.UnsafeAddr()), c.planOf(v.Type()), -1)
	case reflect.Map:
		if v.IsNil() {
			return
		}
		writable(v).Set(c.newMap(v))
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer && (c.shared[e.Type().Elem()] || e.IsNil()) || !c.hasPtrs(e.Type()) {
			return
		}
		if e.Kind() == reflect.Pointer {
			// The data word is the pointer: translated in place.
			if e.Type().Elem().Size() > 0 {
				q := (*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(v.UnsafeAddr()), ptrSize))
				*q = c.translate(*q)
			}
			return
		}
		writable(v).Set(c.copyValue(e))
	}
}

// copyValue returns a copy of a non-addressable value with its
// references translated.
func (c *Copier) copyValue(e reflect.Value) reflect.Value {
	x := reflect.New(e.Type()).Elem()
	x.Set(e)
	c.fix(x)
	return x
}

// newMap returns the copy of map m, made once.
func (c *Copier) newMap(m reflect.Value) reflect.Value {
	st := &c.st
	p := m.Pointer()
	if nm, ok := st.maps[p]; ok {
		return nm
	}
	nm := reflect.MakeMapWithSize(m.Type(), m.Len())
	st.maps[p] = nm
	st.stats.Maps++
	kp, vp := c.hasPtrs(m.Type().Key()), c.hasPtrs(m.Type().Elem())
	it := m.MapRange()
	for it.Next() {
		k, val := it.Key(), it.Value()
		if kp {
			k = c.copyValue(k)
		}
		if vp {
			val = c.copyValue(val)
		}
		nm.SetMapIndex(k, val)
	}
	return nm
}

// writable returns v made settable (v is addressable: an unexported
// field reached through NewAt memory).
func writable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}
