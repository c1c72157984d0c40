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
