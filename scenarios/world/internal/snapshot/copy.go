package snapshot

import (
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// Copier deep-copies object graphs. It keeps per-type facts between
// copies; it is not safe for concurrent use.
type Copier struct {
	shared map[reflect.Type]bool
	ptrs   map[reflect.Type]bool  // whether a type holds pointers
	fields map[reflect.Type][]int // a struct type's fields that hold pointers
	st     state
}

// Stats are what the last copy did.
type Stats struct {
	// Regions is the number of allocations copied; Bytes their size;
	// Maps the number of maps rebuilt; Funcs the function values met
	// (kept as they are).
	Regions, Bytes, Maps, Funcs int
}

// New returns a copier that leaves the shared types shared: a pointer of
// type *T with T among them, or an interface holding one, is kept as it
// is (configuration read only, caches, sinks outside the copied state).
func New(shared ...reflect.Type) *Copier {
	c := &Copier{shared: map[reflect.Type]bool{}, ptrs: map[reflect.Type]bool{}, fields: map[reflect.Type][]int{}}
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

// region is one allocation the source graph reaches: a pointed-to
// value, or the backing array of slices, from start to end.
type region struct {
	start, end uintptr
	sp         unsafe.Pointer // start, as a pointer
	t          reflect.Type   // the value's type (the element's for an array)
	n          int            // an array's length; -1 for a single value
	// root is the index of the region that contains this one (itself
	// for a root); base the new copy's address (roots only).
	root    int
	newBase unsafe.Pointer
	nv      reflect.Value // the new allocation, a pointer (roots only)
}

type visitKey struct {
	p uintptr
	t reflect.Type
	n int
}

type state struct {
	regions []region
	seen    map[visitKey]bool
	maps    map[uintptr]reflect.Value // old map pointer -> new map (pass 2)
	mapSeen map[uintptr]bool
	stats   Stats
	err     error
}

// Copy returns a deep copy of *root (root must be a non-nil pointer):
// every pointer, slice, map and interface reached is copied once, so
// that two references that share memory in the source (two pointers to
// one value, a pointer into a struct or an array, slices of one backing
// array) share it in the copy. Function values are kept as they are
// (the caller rebinds those that close over the copied state), strings
// are shared (immutable), and the Shared types are not copied.
func (c *Copier) Copy(root any) (any, Stats, error) {
	v := reflect.ValueOf(root)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, Stats{}, fmt.Errorf("snapshot: Copy of a %T", root)
	}
	c.st = state{seen: map[visitKey]bool{}, maps: map[uintptr]reflect.Value{}, mapSeen: map[uintptr]bool{}}
	st := &c.st
	c.collectPtr(v)
	if st.err != nil {
		return nil, st.stats, st.err
	}
	if err := c.merge(); err != nil {
		return nil, st.stats, err
	}
	// Allocate the roots and copy their bytes.
	for i := range st.regions {
		r := &st.regions[i]
		if r.root != i {
			continue
		}
		if r.n < 0 {
			r.nv = reflect.New(r.t)
			r.nv.Elem().Set(reflect.NewAt(r.t, r.sp).Elem())
		} else {
			r.nv = reflect.MakeSlice(reflect.SliceOf(r.t), r.n, r.n)
			reflect.Copy(r.nv, reflect.SliceAt(r.t, r.sp, r.n))
		}
		r.newBase = r.nv.UnsafePointer()
		st.stats.Regions++
		st.stats.Bytes += int(r.end - r.start)
	}
	// Fix up the references the copies hold.
	for i := range st.regions {
		r := &st.regions[i]
		switch {
		case r.root != i || !c.hasPtrs(r.t):
		case r.n < 0:
			c.fix(r.nv.Elem())
		default:
			for j := range r.n {
				c.fix(r.nv.Index(j))
			}
		}
	}
	if st.err != nil {
		return nil, st.stats, st.err
	}
	out := c.translate(v.UnsafePointer())
	return reflect.NewAt(v.Type().Elem(), out).Interface(), st.stats, nil
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

// ptrFields returns the fields of struct type t that hold pointers.
func (c *Copier) ptrFields(t reflect.Type) []int {
	fs, ok := c.fields[t]
	if !ok {
		for i := range t.NumField() {
			if c.hasPtrs(t.Field(i).Type) {
				fs = append(fs, i)
			}
		}
		c.fields[t] = fs
	}
	return fs
}

// addRegion notes an allocation; it reports whether it is new.
// An array of n t's has n >= 0; a single value n = -1.
func (c *Copier) addRegion(sp unsafe.Pointer, t reflect.Type, n int) bool {
	st := &c.st
	p := uintptr(sp)
	k := visitKey{p, t, n}
	if st.seen[k] {
		return false
	}
	st.seen[k] = true
	if size := t.Size() * uintptr(max(n, 1)); size > 0 {
		st.regions = append(st.regions, region{start: p, end: p + size, sp: sp, t: t, n: n})
	}
	return true
}

// collectPtr collects what pointer v reaches.
func (c *Copier) collectPtr(v reflect.Value) {
	if v.IsNil() || c.shared[v.Type().Elem()] {
		return
	}
	et := v.Type().Elem()
	if c.addRegion(v.UnsafePointer(), et, -1) && c.hasPtrs(et) {
		c.collect(v.Elem())
	}
}

// collect collects what value v (addressable) reaches.
func (c *Copier) collect(v reflect.Value) {
	st := &c.st
	switch v.Kind() {
	case reflect.Pointer:
		c.collectPtr(v)
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 {
			return
		}
		et, p := v.Type().Elem(), v.UnsafePointer()
		if c.addRegion(p, et, v.Cap()) && c.hasPtrs(et) {
			a := reflect.SliceAt(et, p, v.Cap())
			for i := range v.Cap() {
				c.collect(a.Index(i))
			}
		}
	case reflect.Array:
		if c.hasPtrs(v.Type().Elem()) {
			for i := range v.Len() {
				c.collect(v.Index(i))
			}
		}
	case reflect.Struct:
		for _, i := range c.ptrFields(v.Type()) {
			c.collect(writable(v.Field(i)))
		}
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
		c.collectCopy(v.Elem())
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
	rs := st.regions
	slices.SortFunc(rs, func(a, b region) int {
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
	cur := -1
	for i := range rs {
		r := &rs[i]
		if cur >= 0 && r.start < rs[cur].end {
			if r.end > rs[cur].end {
				root := &rs[cur]
				if root.n < 0 || r.n < 0 || root.t != r.t {
					return fmt.Errorf("snapshot: a %s and a %s overlap", root.t, r.t)
				}
				root.end = r.end
				root.n = int((root.end - root.start) / root.t.Size())
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

// fix rewrites the references v (addressable, in the copy) holds to
// their copies.
func (c *Copier) fix(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || c.shared[v.Type().Elem()] || v.Type().Elem().Size() == 0 {
			return
		}
		setPtr(v, c.translate(v.UnsafePointer()))
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 || v.Type().Elem().Size() == 0 {
			return
		}
		np := c.translate(v.UnsafePointer())
		n, k := v.Len(), v.Cap()
		s := reflect.SliceAt(v.Type().Elem(), np, k).Slice(0, n)
		writable(v).Set(s.Convert(v.Type()))
	case reflect.Array:
		if c.hasPtrs(v.Type().Elem()) {
			for i := range v.Len() {
				c.fix(v.Index(i))
			}
		}
	case reflect.Struct:
		for _, i := range c.ptrFields(v.Type()) {
			c.fix(writable(v.Field(i)))
		}
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

// setPtr sets pointer v to address p.
func setPtr(v reflect.Value, p unsafe.Pointer) {
	w := writable(v)
	w.Set(reflect.NewAt(v.Type().Elem(), p).Convert(v.Type()))
}
