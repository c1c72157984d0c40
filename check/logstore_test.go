package check

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestLogStoreAsSlice: a log store gives back every entry appended to it,
// and finds the entry holding an offset, as a slice of the entries would;
// runs of batches that continue each other are kept as one run.
//
// Seeds 20 to 39 make transactional logs: units of K batches and a
// marker, each transaction at the next epoch with sequences from 0 (as
// under transaction version 2), now and then broken by a gap or an odd
// digest, which fold into cyclic runs.
func TestLogStoreAsSlice(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		units := seed >= 20
		unit, pos, epoch := 1+int(seed%3), 0, int16(0)
		var s logStore
		s.reset()
		var want []logEntry
		var listed []logRec
		off, n := int64(0), int64(0)
		seq := int32(rng.IntN(3)) * (1<<31 - 3) // some wrap
		idem := true
		step := int64(1) // between message numbers: a round-robin partitioner's
		for range 300 {
			if rng.IntN(20) == 0 && !units {
				step = 1 + int64(rng.IntN(3))
			}
			k := 1 + rng.IntN(3)
			if rng.IntN(10) > 0 {
				k = 1 // long runs of single records
			}
			b := model.Batch{PID: model.NoProducerID, Epoch: -1, FirstSeq: model.NoSequence, LastSeq: model.NoSequence}
			if rng.IntN(20) == 0 {
				idem = !idem
			}
			if idem {
				b.PID, b.Epoch, b.FirstSeq, b.LastSeq = 1000, 0, seq, seq+int32(k)-1
				seq += int32(k)
			}
			m := model.MarkerNone
			if units {
				k, b.Transactional = 2, true
				if pos < unit {
					b.PID, b.Epoch, b.FirstSeq, b.LastSeq = 1000, epoch, int32(pos*k), int32(pos*k+k-1)
					pos++
				} else {
					epoch++
					b.PID, b.Epoch, b.FirstSeq, b.LastSeq = 1000, epoch, model.NoSequence, model.NoSequence
					m, k, pos = model.MarkerCommit, 0, 0
				}
			}
			breaks := 30
			if units {
				breaks = 150
			}
			switch rng.IntN(breaks) {
			case 0:
				if !units {
					m, b.Transactional, k = model.MarkerCommit, true, 0
				}
			case 1:
				if !units {
					k = 0
				}
			case 2:
				n += 5 // a gap in message numbers
			case 3:
				off += 2 // a gap in offsets
			}
			for j := range k {
				id := model.RecordID{App: 1, N: n + int64(j)*step}
				b.Records = append(b.Records, model.Record{ID: id, Digest: model.Digest(id, uint64(rng.IntN(breaks+20)/(breaks+19)))})
			}
			n += int64(k) * step
			last := off + max(int64(k), 1) - 1
			e := makeEntry(&b, off, last, sim.Time(rng.IntN(1000)), m, &listed)
			off = last + 1
			if i := s.add(e); i != len(want) {
				t.Fatalf("added at %d, want %d", i, len(want))
			}
			want = append(want, e)
		}
		if s.len() != len(want) {
			t.Fatalf("%d entries, want %d", s.len(), len(want))
		}
		txn := 0
		for i := range want {
			if want[i].marker != model.MarkerNone || want[i].transactional() {
				txn++
			}
		}
		if s.txn != txn {
			t.Fatalf("seed %d: %d transactional entries and markers counted, want %d", seed, s.txn, txn)
		}
		if len(s.runs) >= len(want)/2 || units && len(s.runs) >= len(want)/8 {
			t.Errorf("seed %d: %d runs for %d entries", seed, len(s.runs), len(want))
		}
		if units && len(s.cycs) == 0 {
			t.Errorf("seed %d: %d cycles", seed, len(s.cycs))
		}
		for i, e := range want {
			if got := s.at(i); got != e {
				t.Fatalf("seed %d entry %d: %+v, want %+v", seed, i, got, e)
			}
		}
		// A cursor reads the same, entry by entry, and skipping ahead.
		cur, cur2 := logCursor{s: &s}, logCursor{s: &s}
		for i, e := range want {
			if got := cur.at(i); got != e {
				t.Fatalf("seed %d entry %d by cursor: %+v, want %+v", seed, i, got, e)
			}
			if i%7 == int(seed%7) {
				if got := cur2.at(i); got != e {
					t.Fatalf("seed %d entry %d by a skipping cursor: %+v, want %+v", seed, i, got, e)
				}
			}
		}
		hint := 0
		for o := int64(-1); o <= off; o++ {
			w := -1
			for i, e := range want {
				if e.first <= o && o <= e.last() {
					w = i
				}
			}
			// runByOffset finds the run holding the entry, and entryOf
			// the entry in it; runNear finds the same run, from the
			// previous offset's run and from an arbitrary one.
			got, ri := -1, s.runByOffset(o)
			if ri >= 0 {
				var tmp logRun
				r, k := s.subAt(&s.runs[ri], o, &tmp)
				got = int(r.from + k)
			}
			if got != w {
				t.Fatalf("seed %d offset %d: entry %d, want %d", seed, o, got, w)
			}
			if got := s.runNear(o, &hint); got != ri {
				t.Fatalf("seed %d offset %d: runNear from the last run %d, want %d", seed, o, got, ri)
			}
			far := rng.IntN(len(s.runs) + 1)
			if got := s.runNear(o, &far); got != ri {
				t.Fatalf("seed %d offset %d: runNear from run %d: %d, want %d", seed, o, far, got, ri)
			}
		}
	}
}

// TestRCViewWithoutTransactions: a log with no transactional entry and no
// marker gets the read_committed view the general computation makes
// (compute's shortcut), for logs of 0 to 200 entries with gaps.
func TestRCViewWithoutTransactions(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 9))
		var s logStore
		s.reset()
		var listed []logRec
		off := int64(rng.IntN(5))
		for i := range rng.IntN(200) {
			k := 1 + rng.IntN(3)
			b := model.Batch{PID: model.NoProducerID, Epoch: -1, FirstSeq: model.NoSequence, LastSeq: model.NoSequence}
			for j := range k {
				id := model.RecordID{App: 1, N: int64(i*3 + j)}
				b.Records = append(b.Records, model.Record{ID: id, Digest: model.Digest(id, 0)})
			}
			last := off + int64(k) - 1
			s.add(makeEntry(&b, off, last, sim.Time(i), model.MarkerNone, &listed))
			off = last + 1 + int64(rng.IntN(2))
		}
		if s.txn != 0 {
			t.Fatalf("seed %d: %d transactional entries counted in a log without any", seed, s.txn)
		}
		var short, general rcView
		var sc rcScratch
		short.compute(&s, &sc)
		s.txn = 1 // the general computation
		general.compute(&s, &sc)
		if short.lso != general.lso || short.leo != general.leo || short.pin != general.pin ||
			!slices.Equal(short.fate, general.fate) || !slices.Equal(short.decider, general.decider) {
			t.Fatalf("seed %d: shortcut view %+v, general %+v", seed, short, general)
		}
	}
}
