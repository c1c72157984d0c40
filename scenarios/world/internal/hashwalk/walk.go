package hashwalk

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"unsafe"
)

// Value walks v into the hash.
func (h *Hasher) Value(v reflect.Value) { h.walk(v, nil) }

// walk walks v into the hash; ti is the info of v's type, or nil when
// the caller does not know it.
func (h *Hasher) walk(v reflect.Value, ti *typeInfo) {
	switch v.Kind() {
	case reflect.Bool:
		h.U64(BoolBits(v.Bool()))
		return
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		h.I64(v.Int())
		return
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		h.U64(v.Uint())
		return
	case reflect.String:
		h.Str(v.String())
		return
	case reflect.Struct, reflect.Slice:
	default:
		h.other(v, ti)
		return
	}
	if ti == nil {
		ti = h.c.infoOf(v.Type())
	}
	if ti.special != nil {
		ti.special.Walk(h, Fields{V: v, paths: ti.paths})
		return
	}
	if v.Kind() == reflect.Struct {
		if ti.anyScalar && v.CanAddr() {
			base := v.Addr().UnsafePointer()
			for j, i := range ti.fields {
				if k := ti.scalars[j]; k != reflect.Invalid {
					h.scalarAt(unsafe.Add(base, ti.offs[j]), k)
					continue
				}
				h.walk(v.Field(i), h.c.kid(ti, j))
			}
			return
		}
		for j, i := range ti.fields {
			h.walk(v.Field(i), h.c.kid(ti, j))
		}
		return
	}
	if v.IsNil() {
		h.U64(math.MaxUint64)
		return
	}
	n := v.Len()
	h.U64(uint64(n))
	switch ti.t.Elem().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		for i := range n {
			h.I64(v.Index(i).Int())
		}
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		for i := range n {
			h.U64(v.Index(i).Uint())
		}
	default:
		et := h.c.elemOf(ti)
		for i := range n {
			h.walk(v.Index(i), et)
		}
	}
}

// inPlace reports whether walk reads a struct field of kind k in place
// (scalarAt): the kinds walk hashes at once, bool, integers and strings.
func inPlace(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.String:
		return true
	}
	return false
}

// scalarAt adds the value of kind k at p as walk adds it from a
// reflect.Value: a bool as BoolBits, a signed integer sign-extended, an
// unsigned one zero-extended, a string by Str.
func (h *Hasher) scalarAt(p unsafe.Pointer, k reflect.Kind) {
	switch k {
	case reflect.Bool:
		h.U64(BoolBits(*(*bool)(p)))
	case reflect.Int:
		h.I64(int64(*(*int)(p)))
	case reflect.Int8:
		h.I64(int64(*(*int8)(p)))
	case reflect.Int16:
		h.I64(int64(*(*int16)(p)))
	case reflect.Int32:
		h.I64(int64(*(*int32)(p)))
	case reflect.Int64:
		h.I64(*(*int64)(p))
	case reflect.Uint:
		h.U64(uint64(*(*uint)(p)))
	case reflect.Uint8:
		h.U64(uint64(*(*uint8)(p)))
	case reflect.Uint16:
		h.U64(uint64(*(*uint16)(p)))
	case reflect.Uint32:
		h.U64(uint64(*(*uint32)(p)))
	case reflect.Uint64:
		h.U64(*(*uint64)(p))
	case reflect.Uintptr:
		h.U64(uint64(*(*uintptr)(p)))
	case reflect.String:
		h.Str(*(*string)(p))
	default:
		panic("hashwalk: not a scalar kind: " + k.String())
	}
}

// other walks the kinds walk does not handle at once; ti is the info of
// v's type, or nil.
func (h *Hasher) other(v reflect.Value, ti *typeInfo) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		h.U64(math.Float64bits(v.Float()))
		return
	case reflect.Interface:
		if v.IsNil() {
			h.U64(0)
			return
		}
		e := v.Elem()
		h.U64(h.typeID(e.Type()))
		h.Value(e)
		return
	}
	if ti == nil {
		ti = h.c.infoOf(v.Type())
	}
	t := ti.t
	switch v.Kind() {
	case reflect.Array:
		et := h.c.elemOf(ti)
		for i := range v.Len() {
			h.walk(v.Index(i), et)
		}
	case reflect.Pointer:
		if v.IsNil() {
			h.U64(0)
			return
		}
		if ti.ident {
			var id uint64
			if ti.identPath != nil {
				id = identOf(v.Elem().FieldByIndex(ti.identPath))
			}
			h.U64(id<<1 | 1)
			return
		}
		if n, seen := h.pointer(v.Pointer(), t); seen {
			h.U64(n<<1 | 1)
		} else {
			h.U64(n << 1)
			h.walk(v.Elem(), h.c.elemOf(ti))
		}
	case reflect.Map:
		h.mapValue(v)
	case reflect.Func:
		// Functions are configuration (never state); their presence is.
		h.U64(BoolBits(!v.IsNil()))
	default:
		panic("hashwalk: cannot hash a " + t.String())
	}
}

// identOf returns an Ident's field's value as a number.
func identOf(v reflect.Value) uint64 {
	if v.CanInt() {
		return uint64(v.Int())
	}
	return v.Uint()
}

// pointer returns the number of pointer p of type t and whether it was
// met before.
func (h *Hasher) pointer(p uintptr, t reflect.Type) (uint64, bool) {
	if h.ptrs == nil {
		h.ptrs = map[uintptr]ptrSeen{}
	}
	if s, ok := h.ptrs[p]; ok {
		if s.t == t {
			return s.n, true
		}
		if h.c.others == nil {
			h.c.others = map[ptrOther]uint64{}
		}
		k := ptrOther{p, t}
		if n, ok := h.c.others[k]; ok {
			return n, true
		}
		n := uint64(len(h.ptrs)+len(h.c.others)) + 1
		h.c.others[k] = n
		return n, false
	}
	n := uint64(len(h.ptrs)+len(h.c.others)) + 1
	h.ptrs[p] = ptrSeen{t, n}
	return n, false
}

// kv is a map entry as mapValue sorts it: its key's hash and its value.
type kv struct {
	k [2]uint64
	v reflect.Value
}

// mapValue walks a map in the order of its keys' hashes.
func (h *Hasher) mapValue(v reflect.Value) {
	if v.IsNil() {
		h.U64(math.MaxUint64)
		return
	}
	c := h.c
	var es []kv
	if n := len(c.kvs); n > 0 {
		es, c.kvs = c.kvs[n-1][:0], c.kvs[:n-1]
	}
	it := v.MapRange()
	// One hasher for the keys, emptied for each (a key's pointers and
	// handles are numbered within the key).
	if c.keys == nil {
		c.keys = &Cache{opts: c.opts, specials: c.specials, info: c.info, types: c.types}
	}
	kh := &c.keys.h
	for it.Next() {
		*kh = Hasher{Ctx: h.Ctx, c: c.keys}
		kh.c.others = nil
		kh.Value(it.Key())
		es = append(es, kv{kh.Sum(), it.Value()})
	}
	kh.Ctx = nil
	slices.SortFunc(es, func(x, y kv) int {
		if c := cmp.Compare(x.k[0], y.k[0]); c != 0 {
			return c
		}
		return cmp.Compare(x.k[1], y.k[1])
	})
	h.U64(uint64(len(es)))
	for _, e := range es {
		h.U64(e.k[0])
		h.U64(e.k[1])
		h.Value(e.v)
	}
	clear(es) // let the values go
	c.kvs = append(c.kvs, es)
}
