package snapshot

import "testing"

type node struct {
	name string
	next *node
	vals []int
	m    map[string]*node
	any  any
	arr  [3]*node
	f    func() int
}

type root struct {
	nodes []node
	first *node
	mid   *node
	sub   []node
	n     int
}

func TestCopySharing(t *testing.T) {
	r := sharingRoot()
	c := New()
	out, st, err := c.Copy(r)
	if err != nil {
		t.Fatal(err)
	}
	checkCopy(t, r, out.(*root))
	t.Logf("%+v", st)
}

// TestCopyProgram: a copy of a copy made from its recorded program has
// the sharing of the source, twice, and leaves the copy as it was.
func TestCopyProgram(t *testing.T) {
	r := sharingRoot()
	c := New()
	out, prog, st, err := c.CopyRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	saved := out.(*root)
	if st.Program == 0 || st.Slabs == 0 || st.Slabs > st.Regions {
		t.Fatalf("stats %+v", st)
	}
	for range 2 {
		x, st2, err := c.CopyProgram(prog)
		if err != nil {
			t.Fatal(err)
		}
		if st2.Regions != st.Regions || st2.Bytes != st.Bytes || st2.Slabs != st.Slabs || st2.Program != 0 {
			t.Fatalf("stats %+v, recorded %+v", st2, st)
		}
		checkCopy(t, saved, x.(*root))
		checkCopy(t, r, saved) // the copies share nothing with the saved copy
	}
	c2 := New()
	if _, _, err := c2.CopyProgram(&Program{root: -1}); err == nil {
		t.Fatal("a program without a root copied")
	}
}

// sharingRoot is a graph with every kind of sharing Copy keeps.
func sharingRoot() *root {
	r := &root{nodes: make([]node, 3, 5)}
	for i := range r.nodes {
		r.nodes[i].name = string(rune('a' + i))
		r.nodes[i].vals = []int{i}
	}
	r.nodes[0].next = &r.nodes[1]
	r.nodes[1].next = &r.nodes[2]
	r.nodes[2].next = &r.nodes[0]
	r.first = &r.nodes[0]
	r.mid = &r.nodes[1]
	r.sub = r.nodes[1:2]
	r.nodes[0].m = map[string]*node{"x": &r.nodes[2]}
	r.nodes[1].m = r.nodes[0].m
	r.nodes[2].any = struct{ p *node }{&r.nodes[1]}
	r.nodes[1].any = boxed{7, &r.nodes[2]} // held through the data word
	r.nodes[0].any = &r.nodes[1]
	r.nodes[2].arr[1] = r.first
	r.nodes[0].f = func() int { return 7 }
	return r
}

type boxed struct {
	n int
	p *node
}

// checkCopy checks that n is a copy of r (a sharingRoot, or a copy of
// one) with r's sharing, and changes n's map and values to see that r's
// stay apart.
func checkCopy(t *testing.T, r, n *root) {
	t.Helper()
	if n == r || &n.nodes[0] == &r.nodes[0] {
		t.Fatal("not copied")
	}
	if n.first != &n.nodes[0] || n.mid != &n.nodes[1] || &n.sub[0] != &n.nodes[1] || cap(n.nodes) != 5 {
		t.Fatal("pointers into the slice not kept")
	}
	if n.nodes[0].next.next.next != &n.nodes[0] || n.nodes[2].arr[1] != &n.nodes[0] {
		t.Fatal("cycle")
	}
	if n.nodes[0].m["x"] != &n.nodes[2] {
		t.Fatal("map value")
	}
	n.nodes[0].m["y"] = nil
	if len(n.nodes[1].m) != 2 || len(r.nodes[0].m) != 1 {
		t.Fatal("map sharing")
	}
	if b := n.nodes[1].any.(boxed); b.p != &n.nodes[2] || b.n != 7 || r.nodes[1].any.(boxed).p != &r.nodes[2] {
		t.Fatal("an interface holding a struct")
	}
	if n.nodes[0].any.(*node) != &n.nodes[1] || n.nodes[2].any.(struct{ p *node }).p != &n.nodes[1] {
		t.Fatal("interfaces")
	}
	n.nodes[0].vals[0] = 99
	if r.nodes[0].vals[0] != 0 || n.nodes[0].f() != 7 {
		t.Fatal("vals")
	}
	n.nodes[0].vals[0] = 0
	delete(n.nodes[0].m, "y")
}

// TestCopyOverlappingSlices: slices of one backing array met tail first
// share one array in the copy, as in the source.
func TestCopyOverlappingSlices(t *testing.T) {
	type two struct {
		tail, whole []*int
		p           *int
	}
	arr := make([]*int, 4, 6)
	for i := range arr {
		v := i
		arr[i] = &v
	}
	src := &two{tail: arr[2:], whole: arr, p: arr[3]}
	out, _, err := Copy(New(), src)
	if err != nil {
		t.Fatal(err)
	}
	if &out.tail[0] != &out.whole[2] || &out.whole[0] == &arr[0] || cap(out.tail) != 4 || cap(out.whole) != 6 {
		t.Fatal("backing array not shared")
	}
	if out.p != out.whole[3] || out.p == arr[3] || *out.p != 3 {
		t.Fatal("pointer not translated")
	}
}
