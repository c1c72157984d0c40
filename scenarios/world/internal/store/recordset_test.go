package store

import (
	"reflect"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
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
				rec := model.Record{ID: model.RecordID{App: 1, N: n}, Digest: uint64(i) + 1}
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
			for j := range s.recs {
				in := j >= s.off && j < s.off+s.size
				if (!in || !s.present[j]) && (s.present[j] || !reflect.ValueOf(s.recs[j]).IsZero()) {
					t.Fatalf("slot %d (window [%d, %d)) absent but holds %v", j, s.off, s.off+s.size, s.recs[j])
				}
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
	if s.Len() != 5 || len(s.recs) > 64 {
		t.Fatalf("%d members in a buffer of %d", s.Len(), len(s.recs))
	}
}
