package model

import "testing"

// TestArenaRewind: values handed out are distinct; after rewind the
// remembered chunks' values come back zeroed, in the same order, and a
// run beyond arenaKeep values is served by chunks that are not kept.
func TestArenaRewind(t *testing.T) {
	var a Arena[[2]int]
	const n = 1500
	var first []*[2]int
	seen := map[*[2]int]bool{}
	for i := range n {
		v := a.New()
		if seen[v] || *v != [2]int{} {
			t.Fatalf("value %d: handed out twice or not zero", i)
		}
		seen[v] = true
		v[0] = i + 1
		first = append(first, v)
	}
	if k := a.keptValues(); k != 4+8+16+32+64*(arenaChunks-4) {
		t.Fatalf("%d values kept", k)
	}
	a.Rewind()
	for i := range n {
		v := a.New()
		if *v != [2]int{} {
			t.Fatalf("after rewind, value %d is not zero: %v", i, *v)
		}
		if i < a.keptValues() && v != first[i] {
			t.Fatalf("after rewind, value %d is not the kept one", i)
		}
		if i >= a.keptValues() && seen[v] {
			t.Fatalf("after rewind, value %d comes from a chunk not kept", i)
		}
	}
}
