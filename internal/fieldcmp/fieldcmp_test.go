package fieldcmp

import (
	"reflect"
	"strings"
	"testing"
)

type inner struct{ n []int }

type outer struct {
	a    int
	s    []int
	m    map[string]int
	p    *inner
	pool []byte // allocator state in the test
}

// TestDiff: equal values (capacities aside, skipped fields aside) have no
// difference; each kind of difference is reported with its path.
func TestDiff(t *testing.T) {
	skip := func(typ, field string) bool { return typ == "fieldcmp.outer" && field == "pool" }
	base := func() outer {
		return outer{a: 1, s: make([]int, 2, 9), m: map[string]int{"x": 1}, p: &inner{n: []int{}}, pool: []byte("a")}
	}
	a, b := base(), base()
	b.s = append(make([]int, 0, 2), 0, 0)
	b.pool = nil
	if d := Diff(reflect.ValueOf(a), reflect.ValueOf(b), "v", skip); d != "" {
		t.Fatalf("equal values differ: %s", d)
	}
	for _, c := range []struct {
		change func(*outer)
		want   string
	}{
		{func(o *outer) { o.a = 2 }, "v.a: 1 against 2"},
		{func(o *outer) { o.s = nil }, "v.s: nil against empty"},
		{func(o *outer) { o.s = o.s[:1] }, "v.s: length 2 against 1"},
		{func(o *outer) { o.m["y"] = 2 }, "v.m: 1 entries against 2"},
		{func(o *outer) { o.p.n = nil }, "v.p.n: nil against empty"},
		{func(o *outer) { o.p = nil }, "v.p: nil against non-nil"},
	} {
		b := base()
		c.change(&b)
		if d := Diff(reflect.ValueOf(a), reflect.ValueOf(b), "v", skip); !strings.HasPrefix(d, c.want) {
			t.Errorf("got %q, want %q", d, c.want)
		}
	}
}
