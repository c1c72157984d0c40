package storage

import (
	"math/rand/v2"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// refBatch is a batch the reference accepted.
type refBatch struct {
	first, last int32
	off         int64
}

// refProducer is the naive reference's state for one pid: it remembers
// every batch accepted in the current epoch, not just a window.
type refProducer struct {
	epoch   int16
	hist    []refBatch // all batches accepted in the current epoch, oldest first
	openTxn bool
}

func (r *refProducer) last() int32 {
	if len(r.hist) == 0 {
		return -1
	}
	return r.hist[len(r.hist)-1].last
}

// refPartition is the naive reference partition leader.
type refPartition struct {
	seq   model.SeqSpace
	prods map[model.ProducerID]*refProducer
	leo   int64
}

// decide returns the reference's answer for b, without the duplicate
// check: the error (ErrNone to accept).
func (rp *refPartition) decideNoDup(b model.Batch) model.ErrCode {
	if b.FirstSeq < 0 || b.LastSeq < 0 {
		return model.ErrInvalidRecord
	}
	r := rp.prods[b.PID]
	if r == nil {
		return model.ErrNone
	}
	switch {
	case b.Epoch < r.epoch:
		return model.ErrInvalidProducerEpoch
	case b.Epoch > r.epoch:
		if b.FirstSeq != 0 {
			return model.ErrOutOfOrderSequenceNumber
		}
	default:
		if !rp.seq.Next(r.last(), b.FirstSeq) {
			return model.ErrOutOfOrderSequenceNumber
		}
	}
	if r.openTxn && !b.Transactional {
		return model.ErrInvalidTxnState
	}
	return model.ErrNone
}

// matches returns the indexes in the current epoch's history of batches
// with exactly b's range (only when the epochs are equal).
func (rp *refPartition) matches(b model.Batch) []int {
	r := rp.prods[b.PID]
	if r == nil || b.FirstSeq < 0 || b.LastSeq < 0 || r.epoch != b.Epoch {
		return nil
	}
	var out []int
	for i, h := range r.hist {
		if h.first == b.FirstSeq && h.last == b.LastSeq {
			out = append(out, i)
		}
	}
	return out
}

func (rp *refPartition) accept(b model.Batch, n int64) {
	r := rp.prods[b.PID]
	if r == nil {
		r = &refProducer{epoch: b.Epoch}
		rp.prods[b.PID] = r
	}
	if r.epoch != b.Epoch {
		r.epoch, r.hist = b.Epoch, nil
	}
	r.hist = append(r.hist, refBatch{b.FirstSeq, b.LastSeq, rp.leo})
	if b.Transactional {
		r.openTxn = true
	}
	rp.leo += n
}

func (rp *refPartition) marker(pid model.ProducerID, epoch int16) model.ErrCode {
	r := rp.prods[pid]
	if r != nil && epoch < r.epoch {
		return model.ErrInvalidProducerEpoch
	}
	if r == nil {
		r = &refProducer{epoch: epoch}
		rp.prods[pid] = r
	}
	if r.epoch != epoch {
		r.epoch, r.hist = epoch, nil
	}
	r.openTxn = false
	rp.leo++
	return model.ErrNone
}

// TestAppendDifferential runs random append sequences (3 producers,
// epochs 0..2, in-order sends, retries of any earlier batch, gaps,
// overlaps, negative sequences, transactional batches and markers, a
// 4-bit sequence space so batches wrap, windows of 1..5) against the naive
// reference above, which remembers every batch accepted in the current
// epoch.
//
// They must agree exactly (error, duplicate flag, offsets, and the entry's
// epoch and last sequence afterwards) except when the batch has the same epoch
// and range as a remembered batch that is no longer among the last Window
// accepted batches of its epoch: there the reference's infinite memory says
// "duplicate" while Kafka's window has forgotten it. Those excluded cases are
// still checked against the window rule: if some match is inside the window
// the partition must answer a duplicate with the oldest in-window match's
// offsets, otherwise it must give the reference's answer with the duplicate
// check skipped (UnifiedLogTest#testDuplicateAppends: usually
// OUT_OF_ORDER_SEQUENCE_NUMBER, but after a full wrap the old range can be in
// sequence again and is appended). When several remembered batches match
// inside the window, the oldest wins, as in
// ProducerStateEntry.findDuplicateBatch.
func TestAppendDifferential(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 30
	}
	compared, excluded := 0, 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x1de5))
		space := model.SeqSpace{Bits: 4}
		w := 1 + rng.IntN(5)
		p := NewPartition(0, PartitionConfig{Seq: space, Window: w, NoPartitionVerification: true})
		ref := &refPartition{seq: space, prods: make(map[model.ProducerID]*refProducer)}
		type gen struct {
			epoch int16
			next  int32
			sent  []model.Batch
		}
		gens := [3]gen{}
		for op := 0; op < 400; op++ {
			pi := rng.IntN(3)
			pid := model.ProducerID(pi + 1)
			g := &gens[pi]
			if rng.IntN(20) == 0 {
				// Marker at the current or a higher epoch (sometimes lower).
				ep := g.epoch + int16(rng.IntN(3)) - 1
				want := ref.marker(pid, ep)
				got := p.AppendMarker(0, pid, ep, 0, model.MarkerAbort)
				if got.Err != want {
					t.Fatalf("seed %d op %d: marker pid %d e%d: got %v, want %v", seed, op, pid, ep, got.Err, want)
				}
				if want == model.ErrNone && ep > g.epoch {
					g.epoch, g.next = ep, 0
				}
				continue
			}
			var b model.Batch
			switch k := rng.IntN(10); {
			case k < 5 || len(g.sent) == 0: // next in order
				n := int64(1 + rng.IntN(4))
				b = mk(space, pid, g.epoch, g.next, space.Add(g.next, n-1), rng.IntN(4) == 0)
				g.next = space.Add(g.next, n)
				g.sent = append(g.sent, b)
			case k < 8: // retry of an earlier batch
				b = g.sent[rng.IntN(len(g.sent))]
			case k < 9: // epoch bump, restart at 0
				g.epoch++
				g.next = 0
				b = mk(space, pid, g.epoch, 0, 0, false)
				g.next = 1
				g.sent = append(g.sent, b)
			default: // arbitrary range, maybe negative
				f := int32(rng.IntN(18)) - 2
				l := f
				if f >= 0 {
					l = space.Add(f, int64(rng.IntN(3)))
				}
				b = mk(space, pid, int16(rng.IntN(4)), f, l, rng.IntN(2) == 0)
			}
			n := int64(len(b.Records))
			ms := ref.matches(b)
			got := p.Append(0, b)
			// Reference answer.
			wantErr, wantDup, wantOff := model.ErrNone, false, int64(-1)
			window := false
			if len(ms) > 0 {
				r := ref.prods[b.PID]
				cut := len(r.hist) - w
				inWin := -1
				for _, i := range ms {
					if i >= cut {
						if inWin < 0 {
							inWin = i
						}
					} else {
						window = true
					}
				}
				if inWin >= 0 {
					wantDup, wantOff = true, r.hist[inWin].off
				} else {
					wantErr = ref.decideNoDup(b)
				}
			} else {
				wantErr = ref.decideNoDup(b)
			}
			if wantErr == model.ErrNone && !wantDup {
				wantOff = ref.leo
			}
			if window {
				excluded++
			} else {
				compared++
			}
			if got.Err != wantErr || got.Duplicate != wantDup || got.FirstOffset != wantOff {
				t.Fatalf("seed %d op %d (window %d, excluded=%v): append pid %d e%d [%d,%d] txn=%v: got {%v dup=%v off=%d %q}, want {%v dup=%v off=%d}",
					seed, op, w, window, b.PID, b.Epoch, b.FirstSeq, b.LastSeq, b.Transactional,
					got.Err, got.Duplicate, got.FirstOffset, got.Reason, wantErr, wantDup, wantOff)
			}
			if wantErr == model.ErrNone && !wantDup {
				ref.accept(b, n)
			}
			if p.LogEndOffset() != ref.leo {
				t.Fatalf("seed %d op %d: log end %d, reference %d", seed, op, p.LogEndOffset(), ref.leo)
			}
			if r := ref.prods[b.PID]; r != nil {
				e := p.Producer(b.PID)
				if e == nil || e.Epoch != r.epoch || e.lastSeq() != r.last() || (e.TxnFirstOffset >= 0) != r.openTxn {
					t.Fatalf("seed %d op %d: state of pid %d = %+v, reference %+v", seed, op, b.PID, e, r)
				}
			}
		}
	}
	if compared == 0 || excluded == 0 {
		t.Fatalf("compared %d, excluded %d: generator does not reach both kinds", compared, excluded)
	}
	t.Logf("compared %d appends with the reference, %d window-dependent", compared, excluded)
}
