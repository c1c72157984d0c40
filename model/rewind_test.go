package model

import "testing"

// TestSlabRewind: after rewind a slab hands out its first chunks again,
// cleared (every value zero), and a workload that fits them allocates
// nothing; chunks past the kept ones are not remembered.
func TestSlabRewind(t *testing.T) {
	var s Slab[ProduceResponse]
	work := func() []*ProduceResponse {
		got := make([]*ProduceResponse, 0, 40)
		for i := range 40 {
			v := s.New()
			if v.CorrelationID != 0 {
				t.Fatalf("value %d handed out holding %d", i, v.CorrelationID)
			}
			v.CorrelationID = int64(i + 1)
			got = append(got, v)
		}
		return got
	}
	first := work()
	s.Rewind()
	again := work()
	if first[0] != again[0] || first[39] != again[39] {
		t.Fatal("rewind did not reuse the first chunks")
	}
	s.Rewind()
	if a := testing.AllocsPerRun(10, func() { s.Rewind(); work() }); a > 1 { // got's own array
		t.Fatalf("%v allocations a rewound workload", a)
	}
	for range 1000 {
		s.New()
	}
	if len(s.kept) > slabKept {
		t.Fatalf("%d chunks kept", len(s.kept))
	}
}
