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
	keepers := 0
	work := func() [][]model.Record {
		var out [][]model.Record
		var cur []model.Record
		for i := range 100 {
			cur = s.add(cur, model.Record{ID: model.RecordID{N: int64(i)}, Digest: 7}, &keepers)
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

// TestRecordStoreKeepers: of a producer's 64 partitions, only the first
// recordKeepers to take a chunk keep chunks for the next run.
func TestRecordStoreKeepers(t *testing.T) {
	stores := make([]recordStore, 64)
	keepers := 0
	for i := range stores {
		var cur []model.Record
		for j := range 600 {
			cur = stores[i].add(cur, model.Record{ID: model.RecordID{N: int64(j)}}, &keepers)
		}
	}
	for i := range stores {
		if kept := len(stores[i].kept); (i < recordKeepers) != (kept == recordChunkKept) || i >= recordKeepers && kept != 0 {
			t.Fatalf("partition %d keeps %d chunks", i, kept)
		}
	}
	if keepers != recordKeepers {
		t.Fatalf("%d keepers, want %d", keepers, recordKeepers)
	}
}
