package hashwalk

import (
	"reflect"
	"testing"
)

type leaf struct{ N int }

type state struct {
	A, B    *leaf
	M       map[string]int
	Buf     []int // scratch
	Special marked
	Cfg     limitsConfig
}

type marked struct{ X, Y int }

type limitsConfig struct {
	Max  int
	Next *leaf
}

func hashOf(t *testing.T, v any) [2]uint64 {
	t.Helper()
	c := NewCache(Options{
		Scratch: map[string]bool{"hashwalk.state.Buf": true},
		Specials: []Special{{Type: reflect.TypeFor[marked](), Fields: []string{"X"}, Walk: func(h *Hasher, f Fields) {
			h.I64(f.At(0).Int()) // Y is left out
		}}},
	})
	h := c.Begin(nil)
	h.Value(reflect.ValueOf(v))
	return h.Sum()
}

// TestWalk: what the walk tells apart and what it leaves out.
func TestWalk(t *testing.T) {
	base := func() state {
		return state{A: &leaf{1}, B: &leaf{1}, M: map[string]int{"a": 1, "b": 2, "c": 3}, Cfg: limitsConfig{Max: 5, Next: &leaf{7}}}
	}
	h0 := hashOf(t, base())
	same := []struct {
		name string
		f    func(*state)
	}{
		{"a map built in another order", func(s *state) { s.M = map[string]int{"c": 3, "b": 2}; s.M["a"] = 1 }},
		{"a scratch field", func(s *state) { s.Buf = []int{1, 2, 3} }},
		{"a field the special walk leaves out", func(s *state) { s.Special.Y = 9 }},
		{"a configuration's scalar", func(s *state) { s.Cfg.Max = 6 }},
	}
	for _, c := range same {
		s := base()
		c.f(&s)
		if hashOf(t, s) != h0 {
			t.Errorf("%s changed the hash", c.name)
		}
	}
	differ := []struct {
		name string
		f    func(*state)
	}{
		{"a shared pointer instead of two equal ones", func(s *state) { s.B = s.A }},
		{"a map value", func(s *state) { s.M["b"] = 4 }},
		{"a map key", func(s *state) { delete(s.M, "c"); s.M["d"] = 3 }},
		{"a field the special walk reads", func(s *state) { s.Special.X = 9 }},
		{"what a configuration points to", func(s *state) { s.Cfg.Next.N = 8 }},
		{"a nil pointer", func(s *state) { s.B = nil }},
	}
	for _, c := range differ {
		s := base()
		c.f(&s)
		if hashOf(t, s) == h0 {
			t.Errorf("%s left the hash unchanged", c.name)
		}
	}
	// One cache walks again alike.
	c := NewCache(Options{})
	h1 := c.Begin(nil)
	h1.Value(reflect.ValueOf(base()))
	first := h1.Sum()
	h2 := c.Begin(nil)
	h2.Value(reflect.ValueOf(base()))
	if h2.Sum() != first {
		t.Error("a second walk with the same cache hashed differently")
	}
}

type level int8

type scalars struct {
	B   bool
	I   int
	I8  level
	I16 int16
	I32 int32
	I64 int64
	U   uint
	U8  uint8
	U16 uint16
	U32 uint32
	U64 uint64
	P   uintptr
	S   string
	F   float64
	In  struct{ X int32 }
	L   []scalars
}

// TestInPlaceMatchesReflect: a struct reached in memory (its scalar
// fields read in place) hashes as the same struct reached as a copy (each
// field through a reflect.Value), for every scalar kind, and a change of
// any field changes the hash.
func TestInPlaceMatchesReflect(t *testing.T) {
	v := scalars{B: true, I: -3, I8: -128, I16: -2, I32: -70000, I64: -1 << 40, U: 7, U8: 255, U16: 65535, U32: 1 << 31, U64: 1<<64 - 1,
		P: 9, S: "a string longer than eight", F: -0.5, In: struct{ X int32 }{-1}}
	v.L = []scalars{{I: 1, S: "x"}, {B: true, U8: 2}}
	hashBoth := func(v scalars) [2]uint64 {
		c := NewCache(Options{})
		h := c.Begin(nil)
		h.Value(reflect.ValueOf(&v).Elem()) // addressable: in place
		inPlace := h.Sum()
		h = c.Begin(nil)
		h.Value(reflect.ValueOf(v)) // a copy: through reflect
		if copied := h.Sum(); copied != inPlace {
			t.Fatalf("in place %x, through reflect %x for %+v", inPlace, copied, v)
		}
		return inPlace
	}
	base := hashBoth(v)
	rv := reflect.ValueOf(&v).Elem()
	for i := range rv.NumField() {
		w := v
		w.L = []scalars{v.L[0], v.L[1]}
		f := reflect.ValueOf(&w).Elem().Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			f.SetUint(f.Uint() - 1)
		case reflect.String:
			f.SetString(f.String() + "!")
		case reflect.Float64:
			f.SetFloat(0.5)
		case reflect.Struct:
			w.In.X++
		case reflect.Slice:
			w.L[1].U8++
		}
		if hashBoth(w) == base {
			t.Errorf("a change of field %s leaves the hash", rv.Type().Field(i).Name)
		}
	}
}
