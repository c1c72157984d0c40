package check

import (
	"fmt"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestLogShape: INV-SEQ and INV-EPOCH on appended batches (the cases of
// the former model checker's log-shape table).
func TestLogShape(t *testing.T) {
	for _, c := range []struct {
		name    string
		batches []model.Batch
		want    string
	}{
		{"contiguous", []model.Batch{batch(1, 0, 0, 2), batch(1, 0, 2, 3)}, ""},
		{"gap", []model.Batch{batch(1, 0, 0, 2), batch(1, 0, 3, 1)}, InvSeq},
		{"new pid not at 0", []model.Batch{batch(1, 0, 4, 1)}, InvSeq},
		{"bump to 0", []model.Batch{batch(1, 0, 0, 2), batch(1, 1, 0, 1)}, ""},
		{"bump not at 0", []model.Batch{batch(1, 0, 0, 2), batch(1, 1, 2, 1)}, InvSeq},
		{"epoch down", []model.Batch{batch(1, 1, 0, 2), batch(1, 0, 2, 1)}, InvSeq},
		{"epoch out of range", []model.Batch{batch(1, -3, 0, 1)}, InvEpoch},
		{"not idempotent", []model.Batch{plain(0, 0, 5), plain(0, 0, 9)}, ""},
	} {
		r := newRun(Config{})
		for _, b := range c.batches {
			r.appendBatch(0, b)
		}
		_, vs := r.end(0, 0, "drained", 0)
		// Records reuse ids across batches in this table; keep only shape.
		shape := without(vs, InvDup, InvOrder)
		if got := names(shape); got != c.want {
			t.Errorf("%s: violations %q, want %q (%v)", c.name, got, c.want, shape)
		}
	}
}

// TestSeqDetails: INV-SEQ's details, byte for byte, and refused or
// duplicate batches are not appends.
func TestSeqDetails(t *testing.T) {
	r := newRun(Config{Seq: model.SeqSpace{Bits: 3}})
	r.appendBatch(1, batch(7, 0, 4, 1)) // new pid not at 0
	r.appendBatch(2, batch(7, 0, 5, 3)) // 5..7 follows 4
	r.appendBatch(3, batch(7, 0, 0, 1)) // wraps: 0 follows 7
	r.reject(4, batch(7, 0, 5, 1), model.ErrOutOfOrderSequenceNumber)
	dup := batch(7, 0, 5, 1)
	r.duplicate(4, dup, nil)            // an answer, not an append (INV-DEDUP's)
	r.appendBatch(5, batch(7, 0, 2, 1)) // gap after 0
	r.appendBatch(6, batch(7, 2, 1, 1)) // epoch 2 not at 0
	r.appendBatch(7, batch(7, 1, 0, 1)) // epoch down
	r.appendBatch(8, batch(7, 2, 2, 1)) // follows epoch 2's 1
	_, vs := r.end(9, 0, "drained", 0)
	wantViolations(t, only(vs, InvSeq), []Violation{
		{InvSeq, "p0 pid=7 e=0 seq=4..4 n=1 [a0:4] at offset 0 does not start at sequence 0 (first batch of the pid on the partition)", 1},
		{InvSeq, "p0 pid=7 e=0 seq=2..2 n=1 [a0:2] at offset 5 does not follow sequence 0", 5},
		{InvSeq, "p0 pid=7 e=2 seq=1..1 n=1 [a0:1] at offset 6 does not start at sequence 0 (first batch of epoch 2)", 6},
		{InvSeq, "p0 pid=7 e=1 seq=0..0 n=1 [a0:0] at offset 7: epoch went down from 2", 7},
	})
}

// TestFenceAndDedup: a zombie write after the coordinator bumped the
// epoch (INV-FENCE), an epoch handed out lower than before (INV-EPOCH)
// and a duplicate answer for different data (INV-DEDUP), reported in
// registry order.
func TestFenceAndDedup(t *testing.T) {
	r := newRun(Config{})
	r.epoch(0, 5, 0)
	orig := r.appendBatch(0, batch(5, 0, 0, 1))
	r.epoch(1, 5, 1)
	r.appendBatch(2, batch(5, 0, 1, 1)) // a zombie write
	r.epoch(3, 5, 0)                    // epochs never go down
	r.duplicate(4, batch(5, 0, 0, 1), &orig)
	other := batch(5, 0, 0, 1)
	other.Records[0].Digest = 99 // new data with a reused sequence (Z11)
	r.duplicate(5, other, &orig)
	_, vs := r.end(6, 0, "drained", 0)
	wantViolations(t, vs, []Violation{
		{InvDedup, "p0 pid=5 e=0 seq=0..0 n=1 [a0:0] answered as a duplicate of offset 0, which holds p0 pid=5 e=0 seq=0..0 n=1 [a0:0]", 5},
		{InvFence, "p0 pid=5 e=0 seq=1..1 n=1 [a0:1] appended at offset 1 after the coordinator moved pid 5 to epoch 1", 2},
		{InvEpoch, "pid 5 epoch went from 1 down to 0", 3},
	})
}

// TestFenceEpochZero: a pid only ever handed epoch 0 fences nothing, and a
// refused InitProducerId hands out nothing.
func TestFenceEpochZero(t *testing.T) {
	r := newRun(Config{})
	r.epoch(0, 5, 0)
	r.epochRefused(0, 6, 3)
	r.appendBatch(1, batch(5, -1, 0, 1)) // below 0, but the pid was never moved up
	b := batch(6, 1, 0, 1)
	b.Partition = 1
	r.appendBatch(1, b)
	_, vs := r.end(2, 0, "drained", 0)
	if f := only(vs, InvFence); len(f) != 0 {
		t.Fatalf("INV-FENCE %v, want none", f)
	}
	// The epoch below 0 is INV-EPOCH's.
	wantViolations(t, only(vs, InvEpoch), []Violation{
		{InvEpoch, "p0 pid=5 e=-1 seq=0..0 n=1 [a0:0] appended at offset 0 with epoch outside 0..32767", 1},
	})
}

// TestEpochRange: MaxEpoch bounds the epochs handed out and appended.
func TestEpochRange(t *testing.T) {
	r := newRun(Config{MaxEpoch: 7})
	r.epoch(1, 3, 7)
	r.epoch(2, 3, 8)
	r.epoch(3, 4, -2)
	r.epochRefused(4, 3, 99)
	r.appendBatch(5, batch(3, 8, 0, 1))
	_, vs := r.end(6, 0, "drained", 0)
	wantViolations(t, only(vs, InvEpoch), []Violation{
		{InvEpoch, "pid 3 given epoch 8 outside 0..7", 2},
		{InvEpoch, "pid 4 given epoch -2 outside 0..7", 3},
		{InvEpoch, "p0 pid=3 e=8 seq=0..0 n=1 [a0:0] appended at offset 0 with epoch outside 0..7", 5},
	})
}

// TestDedupAnswers: a duplicate answer must match the stored batch record
// by record; an answer with nothing in the log never does.
func TestDedupAnswers(t *testing.T) {
	r := newRun(Config{})
	orig := r.appendBatch(1, batch(5, 0, 0, 2))
	r.duplicate(2, batch(5, 0, 0, 2), &orig) // a true retry
	r.duplicate(3, batch(5, 0, 0, 1), &orig) // fewer records
	moved := batch(5, 0, 0, 2)
	moved.Records[1].ID.N = 9
	r.duplicate(4, moved, &orig) // other record
	r.duplicate(5, batch(5, 0, 7, 1), nil)
	_, vs := r.end(6, 0, "drained", 0)
	wantViolations(t, only(vs, InvDedup), []Violation{
		{InvDedup, "p0 pid=5 e=0 seq=0..0 n=1 [a0:0] answered as a duplicate of offset 0, which holds p0 pid=5 e=0 seq=0..1 n=2 [a0:0..a0:1]", 3},
		{InvDedup, "p0 pid=5 e=0 seq=0..1 n=2 [a0:0..a0:9] answered as a duplicate of offset 0, which holds p0 pid=5 e=0 seq=0..1 n=2 [a0:0..a0:1]", 4},
		{InvDedup, "p0 pid=5 e=0 seq=7..7 n=1 [a0:7] answered as a duplicate of nothing in the log", 5},
	})
}

// TestStateCheck: a broker restart whose producer state differs from a
// replay of its log breaks INV-STATE; agreement is silent.
func TestStateCheck(t *testing.T) {
	r := newRun(Config{})
	r.stateCheck(1, 0, "")
	r.stateCheck(2, 1, "pid 7: epoch 0, replay says 1")
	_, vs := r.end(3, 0, "drained", 0)
	wantViolations(t, vs, []Violation{{InvState, "p1 after restart: pid 7: epoch 0, replay says 1", 2}})
}

// TestShapeCaps: each log-shape invariant keeps its own first 24
// violations and counts the rest in a closing line at the end time; one
// invariant's flood does not hide another's.
func TestShapeCaps(t *testing.T) {
	r := newRun(Config{})
	for i := range 30 {
		r.stateCheck(1, int32(i), fmt.Sprintf("diff %d", i))
	}
	r.epoch(1, 9, 2)
	for range 27 {
		r.appendBatch(2, batch(9, 1, 0, 1)) // INV-FENCE each time; INV-SEQ from the second on
	}
	_, vs := r.end(5, 0, "drained", 0)
	state := only(vs, InvState)
	if len(state) != 25 || state[23].Detail != "p23 after restart: diff 23" ||
		state[24] != (Violation{InvState, "... and 6 more log-shape violations", 5}) {
		t.Errorf("INV-STATE: %d violations, last two %v", len(state), state[len(state)-2:])
	}
	fence := only(vs, InvFence)
	if len(fence) != 25 || fence[24] != (Violation{InvFence, "... and 3 more log-shape violations", 5}) {
		t.Errorf("INV-FENCE: %d violations, last %v", len(fence), fence[len(fence)-1])
	}
	seq := only(vs, InvSeq)
	if len(seq) != 25 || seq[24] != (Violation{InvSeq, "... and 2 more log-shape violations", 5}) {
		t.Errorf("INV-SEQ: %d violations, last %v", len(seq), seq[len(seq)-1])
	}
}
