package model

import "testing"

// TestSlabRewind: after rewind a slab hands out its first chunks again,
// cleared (every value zero), and a workload that fits them allocates
// nothing; chunks past the kept ones are not remembered.
func TestSlabRewind(t *testing.T) {
	var s slab[ProduceResponse]
	work := func() []*ProduceResponse {
		got := make([]*ProduceResponse, 0, 40)
		for i := range 40 {
			v := s.new()
			if v.CorrelationID != 0 {
				t.Fatalf("value %d handed out holding %d", i, v.CorrelationID)
			}
			v.CorrelationID = int64(i + 1)
			got = append(got, v)
		}
		return got
	}
	first := work()
	s.rewind()
	again := work()
	if first[0] != again[0] || first[39] != again[39] {
		t.Fatal("rewind did not reuse the first chunks")
	}
	s.rewind()
	if a := testing.AllocsPerRun(10, func() { s.rewind(); work() }); a > 1 { // got's own array
		t.Fatalf("%v allocations a rewound workload", a)
	}
	for range 1000 {
		s.new()
	}
	if len(s.kept) > slabKept {
		t.Fatalf("%d chunks kept", len(s.kept))
	}
}

// TestRecordStoreRewind: after rewind a record store reuses its first
// chunks, cleared, and slices it hands out still have capacity equal to
// length.
func TestRecordStoreRewind(t *testing.T) {
	var s recordStore
	work := func() [][]Record {
		var out [][]Record
		var cur []Record
		for i := range 100 {
			cur = s.add(cur, Record{ID: RecordID{N: int64(i)}, Digest: 7})
			if cap(cur) != len(cur) {
				t.Fatalf("a slice with room behind it: len %d cap %d", len(cur), cap(cur))
			}
			if i%10 == 9 {
				out = append(out, cur)
				cur = nil
			}
		}
		return out
	}
	first := work()
	s.rewind()
	again := work()
	if &first[0][0] != &again[0][0] {
		t.Fatal("rewind did not reuse the first chunk")
	}
	for _, b := range again {
		for j, r := range b {
			if r.Digest != 7 || r.ID.N%10 != int64(j) {
				t.Fatalf("record %d of a batch: %+v", j, r)
			}
		}
	}
}
