package client

import (
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestRecordStoreRewind: after rewind a record store reuses its first
// chunks, cleared, and slices it hands out still have capacity equal to
// length.
func TestRecordStoreRewind(t *testing.T) {
	var s recordStore
	work := func() [][]model.Record {
		var out [][]model.Record
		var cur []model.Record
		for i := range 100 {
			cur = s.add(cur, model.Record{ID: model.RecordID{N: int64(i)}, Digest: 7})
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
