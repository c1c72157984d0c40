package scenarios

import (
	"reflect"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
	"pgregory.net/rapid"
)

// TestRecordSetAsMap: any sequence of puts, deletes and clears leaves a
// recordSet with the members a map would have, listed in increasing
// message number, in its canonical form (the window from the smallest
// member to the largest, absent slots zero).
func TestRecordSetAsMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s recordSet
		m := map[int64]model.Record{}
		for i := range rapid.IntRange(0, 200).Draw(t, "ops") {
			n := rapid.Int64Range(0, 40).Draw(t, "n")
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 6:
				rec := model.Record{ID: model.RecordID{App: 1, N: n}, Digest: uint64(i) + 1}
				s.put(rec)
				m[n] = rec
			case op < 9:
				s.delete(n)
				delete(m, n)
			default:
				s.clear()
				clear(m)
			}
			if s.len() != len(m) {
				t.Fatalf("len %d, map %d", s.len(), len(m))
			}
			var keys []int64
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var got []model.Record
			s.each(func(r model.Record) { got = append(got, r) })
			for j, k := range keys {
				if j >= len(got) || got[j] != m[k] {
					t.Fatalf("members %v, map %v", got, m)
				}
				if r, ok := s.get(k); !ok || r != m[k] {
					t.Fatalf("get(%d) = %v %v, map %v", k, r, ok, m[k])
				}
			}
			if len(got) != len(keys) || s.has(41) || s.has(-1) {
				t.Fatalf("members %v, map %v", got, m)
			}
			if len(keys) == 0 {
				if len(s.recs) != 0 || s.base != 0 {
					t.Fatalf("empty set with window %d at %d", len(s.recs), s.base)
				}
				continue
			}
			if s.base != keys[0] || int64(len(s.recs)) != keys[len(keys)-1]-keys[0]+1 {
				t.Fatalf("window [%d, +%d) for members %v", s.base, len(s.recs), keys)
			}
			for j, ok := range s.present {
				if !ok && !reflect.ValueOf(s.recs[j]).IsZero() {
					t.Fatalf("absent slot %d holds %v", j, s.recs[j])
				}
			}
		}
	})
}
