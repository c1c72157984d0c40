package hashwalk

import (
	"reflect"
	"strings"
)

// Special is a type the caller walks itself: Walk is called with the
// value's Fields (named in Fields, in order: "a.b" is field b of field
// a; "x[]y" is field y of the elements of slice field x, "[]y" of the
// elements of the type itself, a slice).
type Special struct {
	Type   reflect.Type
	Fields []string
	Walk   func(h *Hasher, f Fields)
}

// Fields is a special value and its named fields.
type Fields struct {
	V     reflect.Value
	paths [][]int
}

// At returns the k-th named field of the value.
func (f Fields) At(k int) reflect.Value { return f.V.FieldByIndex(f.paths[k]) }

// Path returns the k-th named field's index path, for a name that
// reaches into a slice's elements ("x[]y": use it on an element).
func (f Fields) Path(k int) []int { return f.paths[k] }

// Options are what the walk skips and what the caller walks itself.
type Options struct {
	// Scratch are the fields that hold nothing between events, by
	// "package.Type.Field" (reflect.Type.String, a dot, the field name).
	Scratch map[string]bool
	// SkipTypes are field types skipped wherever they are.
	SkipTypes []reflect.Type
	Specials  []Special
	// Idents are the pointer types hashed by a number the caller gives
	// their pointee (its place in the state: a producer instance's node
	// id), not walked: the caller walks the pointee as a part of its own
	// ([Parts]).
	Idents []Ident
	// Values reports the pointer types whose pointees are never changed
	// once made (a message, once sent): parts may share them, as values
	// ([Parts.Shared] does not list them).
	Values func(t reflect.Type) bool
}

// Ident is a pointer type hashed by its (non-nil) pointee's integer field
// Field, unique among the pointees of the type in one state ("": a type
// with one pointee a state, hashed as 0).
type Ident struct {
	Type  reflect.Type
	Field string
}

// Cache holds what walks in one goroutine share: per type, the fields a
// walk reads, its number and its special walk, and the maps a walk
// reuses. It must not be shared between goroutines.
type Cache struct {
	opts     Options
	specials map[reflect.Type]*Special
	info     map[reflect.Type]*typeInfo
	types    map[reflect.Type]uint64
	ptrs     map[uintptr]ptrSeen
	handles  map[uint64]uint64
	// others numbers pointers that share an address with one of another
	// type (rare).
	others map[ptrOther]uint64
	// sub is the cache of Hasher.Sub's walks (made on first use): their
	// own pointers, the type facts shared.
	sub *Cache
	// h is the hasher of the walk under way (Begin); keys the cache of
	// the walks of map keys (mapValue, made on first use); kvs the
	// buffers of map entries not in use (mapValue).
	h    Hasher
	keys *Cache
	kvs  [][]kv
}

// NewCache returns an empty cache for walks with opts.
func NewCache(opts Options) *Cache {
	c := &Cache{opts: opts, specials: map[reflect.Type]*Special{}, info: map[reflect.Type]*typeInfo{}, types: map[reflect.Type]uint64{},
		ptrs: map[uintptr]ptrSeen{}, handles: map[uint64]uint64{}, others: map[ptrOther]uint64{}}
	for i := range opts.Specials {
		c.specials[opts.Specials[i].Type] = &opts.Specials[i]
	}
	return c
}

// typeInfo is what the walk needs to know of a type: whether the caller
// walks it (special, with its named fields' paths), and a struct's
// fields to walk. It links to the infos of its fields' types (kids,
// parallel to fields) and of its element type (elem: a slice's, an
// array's, a pointer's), found on first use, so that a walk looks a type
// up once per type, not once per value.
type typeInfo struct {
	t       reflect.Type
	special *Special
	paths   [][]int
	fields  []int
	kids    []*typeInfo
	elem    *typeInfo
	// scalars, parallel to fields, is the kind of each walked field that
	// the walk reads in place (a bool, integer or string: walk's first
	// cases), reflect.Invalid for the others; offs are the fields'
	// offsets. A struct the walk reaches in memory (addressable) has its
	// scalar fields read there, without a reflect.Value each.
	scalars []reflect.Kind
	offs    []uintptr
	// anyScalar: some walked field is read in place.
	anyScalar bool
	// ident: a pointer of an Ident type, hashed by the pointee's field
	// at identPath (nil: hashed as 0).
	ident     bool
	identPath []int
}

// infoOf returns what the walk needs to know of type t.
func (c *Cache) infoOf(t reflect.Type) *typeInfo {
	ti, ok := c.info[t]
	if ok {
		return ti
	}
	ti = &typeInfo{t: t, special: c.specials[t]}
	if t.Kind() == reflect.Struct {
		ti.fields = c.fieldsOf(t)
		ti.kids = make([]*typeInfo, len(ti.fields))
		ti.scalars = make([]reflect.Kind, len(ti.fields))
		ti.offs = make([]uintptr, len(ti.fields))
		for j, i := range ti.fields {
			f := t.Field(i)
			ti.offs[j] = f.Offset
			if inPlace(f.Type.Kind()) {
				ti.scalars[j] = f.Type.Kind()
				ti.anyScalar = true
			}
		}
	}
	for _, id := range c.opts.Idents {
		if id.Type == t {
			ti.ident = true
			if id.Field != "" {
				ti.identPath = fieldPath(t.Elem(), id.Field)
			}
		}
	}
	if ti.special != nil {
		for _, name := range ti.special.Fields {
			ti.paths = append(ti.paths, fieldPath(t, name))
		}
	}
	c.info[t] = ti
	return ti
}

// kid returns the info of the type of ti's j-th walked field.
func (c *Cache) kid(ti *typeInfo, j int) *typeInfo {
	k := ti.kids[j]
	if k == nil {
		k = c.infoOf(ti.t.Field(ti.fields[j]).Type)
		ti.kids[j] = k
	}
	return k
}

// elemOf returns the info of ti's element type.
func (c *Cache) elemOf(ti *typeInfo) *typeInfo {
	if ti.elem == nil {
		ti.elem = c.infoOf(ti.t.Elem())
	}
	return ti.elem
}

// fieldsOf returns the fields of struct type t the walk hashes: all but
// scratch, the skipped types and a configuration's scalars.
func (c *Cache) fieldsOf(t reflect.Type) []int {
	fs := []int{}
	config := strings.HasSuffix(t.Name(), "Config")
	for i := range t.NumField() {
		f := t.Field(i)
		skip := c.opts.Scratch[t.String()+"."+f.Name]
		for _, st := range c.opts.SkipTypes {
			skip = skip || f.Type == st
		}
		if skip {
			continue
		}
		if config {
			switch f.Type.Kind() {
			case reflect.Pointer, reflect.Interface, reflect.Struct:
			default:
				continue
			}
		}
		fs = append(fs, i)
	}
	return fs
}

// fieldPath returns the index path of the field a name (Special.Fields)
// names in type t.
func fieldPath(t reflect.Type, name string) []int {
	if before, after, ok := strings.Cut(name, "[]"); ok {
		if before != "" {
			f, _ := t.FieldByName(before)
			t = f.Type
		}
		return fieldPath(t.Elem(), after)
	}
	var path []int
	for part := range strings.SplitSeq(name, ".") {
		f, ok := t.FieldByName(part)
		if !ok {
			panic("hashwalk: " + t.String() + " has no field " + part)
		}
		path = append(path, f.Index...)
		t = f.Type
	}
	return path
}

// typeID returns the number of type t: a hash of its name.
func (h *Hasher) typeID(t reflect.Type) uint64 {
	id, ok := h.c.types[t]
	if !ok {
		s := &Hasher{}
		s.Str(t.String())
		id = s.Sum()[0]
		h.c.types[t] = id
	}
	return id
}
