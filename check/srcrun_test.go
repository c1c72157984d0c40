package check

import (
	"math/rand/v2"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestSrcRuns: the transactions pushed for a partition's entries, kept
// as runs of units, read back as a plain list of them would: entries of
// a few producers' transactions of a few batches each, markers between
// them (no key), some keys repeating, some ordinals skipping.
func TestSrcRuns(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 3))
		var f txnFacts
		f.reset()
		want := map[int]txnKey{}
		n := 0
		k := txnKey{node: 1, ord: 1}
		per := 1 + rng.IntN(3)
		for range 300 {
			if rng.IntN(15) == 0 {
				per = 1 + rng.IntN(3)
			}
			if rng.IntN(20) == 0 {
				k.node = int32(rng.IntN(3))
			}
			if rng.IntN(30) == 0 {
				k.inc++
			}
			for range per {
				if rng.IntN(60) == 0 {
					f.push(0, txnKey{}) // non-transactional data
					n++
				}
				want[n] = k
				f.push(0, k)
				n++
			}
			for range 1 + rng.IntN(20)/19 {
				f.push(0, txnKey{}) // a marker
				n++
			}
			k.ord += 1 + int32(rng.IntN(30)/29)
		}
		for i := range n + 2 {
			if got := f.key(0, i); got != want[i] {
				t.Fatalf("seed %d: entry %d: key %+v, want %+v", seed, i, got, want[i])
			}
		}
		if len(f.src[0]) > 200 {
			t.Errorf("seed %d: %d runs for 300 transactions", seed, len(f.src[0]))
		}
	}
}

// TestMarkerRuns: the markers kept as runs give the closer a plain list
// of them gives: the first marker of the producer id above an offset.
func TestMarkerRuns(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 5))
		var ot openTxns
		ot.reset()
		var all []txnMarker
		off := int64(0)
		step := int64(1 + rng.IntN(4))
		for range 200 {
			if rng.IntN(10) == 0 {
				step = int64(1 + rng.IntN(4))
			}
			off += step
			m := txnMarker{pid: model.ProducerID(rng.IntN(8) / 6), off: off, commit: rng.IntN(12) > 0}
			all = append(all, m)
			ot.part(0).addMarker(m)
		}
		for o := int64(-1); o <= off+1; o++ {
			for pid := range model.ProducerID(3) {
				var want txnMarker
				found := false
				for _, m := range all {
					if m.pid == pid && m.off > o && (!found || m.off < want.off) {
						want, found = m, true
					}
				}
				if got, ok := ot.closer(0, pid, o); got != want || ok != found {
					t.Fatalf("seed %d: closer(pid %d, %d) = %+v %v, want %+v %v", seed, pid, o, got, ok, want, found)
				}
			}
		}
		if len(ot.parts[0].markers) > 150 {
			t.Errorf("seed %d: %d runs for 200 markers", seed, len(ot.parts[0].markers))
		}
	}
}
