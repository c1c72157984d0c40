package store

import (
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
	"pgregory.net/rapid"
)

// TestRecordSetAsMap: any sequence of puts, deletes and clears leaves a
// RecordSet with the members a map would have, listed in increasing
// message number, in its canonical form (the window from the smallest
// member to the largest, absent slots zero).
func TestRecordSetAsMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s RecordSet
		m := map[int64]model.Record{}
		for i := range rapid.IntRange(0, 200).Draw(t, "ops") {
			n := rapid.Int64Range(0, 40).Draw(t, "n")
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 6:
				// Mostly records as the world makes them, kept in
				// their slots; sometimes another application's, or
				// another digest or create time, kept whole.
				id := model.RecordID{App: 1, N: n}
				rec := model.Record{ID: id, Digest: model.Digest(id, 0), Partition: int32(i % 3), SentAt: sim.Time(i)}
				switch rapid.IntRange(0, 5).Draw(t, "odd") {
				case 0:
					rec.ID.App, rec.Digest = 2, model.Digest(model.RecordID{App: 2, N: n}, 0)
				case 1:
					rec.Digest++
				case 2:
					rec.CreateTime = 7
				}
				s.Put(rec)
				m[n] = rec
			case op < 9:
				s.Delete(n)
				delete(m, n)
			default:
				s.Clear()
				clear(m)
			}
			if s.Len() != len(m) {
				t.Fatalf("len %d, map %d", s.Len(), len(m))
			}
			var keys []int64
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var got []model.Record
			s.Each(func(r model.Record) { got = append(got, r) })
			for j, k := range keys {
				if j >= len(got) || got[j] != m[k] {
					t.Fatalf("members %v, map %v", got, m)
				}
				if r, ok := s.Get(k); !ok || r != m[k] {
					t.Fatalf("get(%d) = %v %v, map %v", k, r, ok, m[k])
				}
			}
			if len(got) != len(keys) || s.Has(41) || s.Has(-1) {
				t.Fatalf("members %v, map %v", got, m)
			}
			if len(keys) == 0 {
				if s.size != 0 {
					t.Fatalf("empty set with a window of %d", s.size)
				}
			} else if s.base != keys[0] || int64(s.size) != keys[len(keys)-1]-keys[0]+1 {
				t.Fatalf("window [%d, +%d) for members %v", s.base, s.size, keys)
			}
			odd := 0
			for j := range s.slots {
				in := j >= s.off && j < s.off+s.size
				present := s.slots[j].Flags&SlotPresent != 0
				if (!in || !present) && !reflect.ValueOf(s.slots[j]).IsZero() {
					t.Fatalf("slot %d (window [%d, %d)) absent but holds %v", j, s.off, s.off+s.size, s.slots[j])
				}
				if in && s.slots[j].Flags&SlotOdd != 0 {
					odd++
				}
			}
			if odd != len(s.odd) {
				t.Fatalf("%d slots say their member is kept whole, %d are", odd, len(s.odd))
			}
		}
	})
}

// TestRecordSetSlides: a window of five records sliding over many
// (records sent in order, each resolved five sends later) reuses one
// buffer.
func TestRecordSetSlides(t *testing.T) {
	var s RecordSet
	var n int64
	slide := func() {
		for range 10_000 {
			s.Put(model.Record{ID: model.RecordID{N: n}})
			if n >= 5 {
				s.Delete(n - 5)
			}
			n++
		}
	}
	slide()
	if a := testing.AllocsPerRun(5, slide); a != 0 {
		t.Fatalf("%v allocations per 10,000 records", a)
	}
	if s.Len() != 5 || len(s.slots) > 64 {
		t.Fatalf("%d members in a buffer of %d", s.Len(), len(s.slots))
	}
}

// TestRecordSetBacklogSlots: the records the world makes (its
// application's, with their original digests and no create time) are
// kept in 16-byte slots, none whole, so a backlog of N records holds at
// most 4N slots of 16 bytes.
func TestRecordSetBacklogSlots(t *testing.T) {
	if size := unsafe.Sizeof(RecordSlot{}); size > 16 {
		t.Fatalf("a slot takes %d bytes", size)
	}
	var s RecordSet
	const n = 100_000
	for i := range int64(n) {
		id := model.RecordID{App: 3, N: i}
		s.Put(model.Record{ID: id, Digest: model.Digest(id, 0), Partition: int32(i % 64), SentAt: sim.Time(i)})
	}
	if len(s.odd) != 0 || len(s.slots) > 4*n {
		t.Fatalf("%d records kept whole, %d slots for %d records", len(s.odd), len(s.slots), n)
	}
	if r, ok := s.Get(77); !ok || r.ID.App != 3 || r.Partition != 77%64 || r.SentAt != 77 || r.Digest != model.Digest(r.ID, 0) {
		t.Fatalf("record 77: %+v %v", r, ok)
	}
}
