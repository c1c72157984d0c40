package input

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
)

// TestLayout: two applications, three input partitions after four output
// partitions, seven records each, two aborted records first: every
// record is in its partition at its offset, each partition ends where
// End says, and the aborted transaction's records are not committed.
func TestLayout(t *testing.T) {
	l := Layout{Base: 4, Parts: 3, Apps: 2, Records: 7, Aborted: 2}
	if got := l.Leaders([]int32{0, 1, 0, 1}, 2); len(got) != 10 || got[4] != 0 || got[5] != 1 || got[9] != 1 {
		t.Fatalf("leaders %v, want 4 outputs then 6 inputs round robin", got)
	}
	parts := map[int32]*storage.Partition{}
	l.Fill(func(p int32, write func(*storage.Partition)) {
		parts[p] = storage.NewPartition(p, storage.PartitionConfig{Window: 5, Seq: model.SeqSpace{Bits: 31}})
		write(parts[p])
	})
	if len(parts) != 6 {
		t.Fatalf("%d input partitions filled, want 6", len(parts))
	}
	for app := range int32(2) {
		for i, p := range l.Partitions(app) {
			lp := parts[p]
			if lp.LogEndOffset() != l.End(int32(i)) {
				t.Errorf("app %d partition %d: log end %d, End %d", app, p, lp.LogEndOffset(), l.End(int32(i)))
			}
			for _, e := range lp.ReadCommitted(0) {
				for k, r := range e.Batch.Records {
					if r.ID.App != app || r.ID.N >= 7 || r.ID.N%3 != int64(i) {
						t.Errorf("app %d partition %d: committed record %v", app, p, r.ID)
					}
					if want := l.skip(int32(i)) + r.ID.N/3; e.FirstOffset+int64(k) != want {
						t.Errorf("record %v at offset %d, want %d", r.ID, e.FirstOffset+int64(k), want)
					}
				}
			}
		}
	}
	one := Layout{Base: 1, Parts: 1, Apps: 1, Records: 5, Aborted: 3}
	if got := one.Positions(2)[0]; got != 6 {
		t.Errorf("position of record 2 after 3 aborted records and their marker: %d, want 6", got)
	}
	if got := one.Positions(-1)[0]; got != 4 {
		t.Errorf("position without a commit: %d, want 4 (the first record)", got)
	}
	if got := one.Positions(9)[0]; got != one.End(0) {
		t.Errorf("position past the input: %d, want its end %d", got, one.End(0))
	}
}

// TestCommitted: the offsets after a transaction's last records, per
// input partition: after the aborted records and their marker in
// partition 0, none where the transaction has no record.
func TestCommitted(t *testing.T) {
	l := Layout{Base: 1, Parts: 3, Apps: 1, Records: 20, Aborted: 2}
	got := l.Committed([]model.RecordID{{N: 3}, {N: 7}, {N: 4}, {N: 0}})
	if want := []int64{3 + 2, 7/3 + 1, -1}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("committed %v, want %v", got, want)
	}
}

// TestAbortedPastSequenceSpace: an aborted transaction longer than the
// sequence space (input.aborted=180 at sequence.bits=6 panicked writing
// one 180-record batch) is written as transactions the space can number,
// and
// the first input record still sits after all of them and their three
// markers.
func TestAbortedPastSequenceSpace(t *testing.T) {
	l := Layout{Base: 1, Parts: 1, Apps: 1, Records: 5, Aborted: 180, Seq: model.SeqSpace{Bits: 6}}
	var p *storage.Partition
	l.Fill(func(part int32, write func(*storage.Partition)) {
		p = storage.NewPartition(part, storage.PartitionConfig{Window: 5, Seq: model.SeqSpace{Bits: 6}})
		write(p)
	})
	if got, want := p.LogEndOffset(), l.End(0); got != want || want != 180+3+5 {
		t.Fatalf("log end %d, End %d, want 188", got, want)
	}
	n := 0
	for _, e := range p.ReadCommitted(0) {
		for k, r := range e.Batch.Records {
			if r.ID.N >= 5 || e.FirstOffset+int64(k) != 183+r.ID.N {
				t.Errorf("committed record %v at offset %d", r.ID, e.FirstOffset+int64(k))
			}
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d committed records, want 5", n)
	}
}
