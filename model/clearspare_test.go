package model

import "testing"

// TestEffectStackClearSpare: at a run's end the stale elements a node's
// effect buffers keep (past their lengths, and in spare depths) are
// zeroed, so that they no longer point into the run; what a hold still
// holds is untouched.
func TestEffectStackClearSpare(t *testing.T) {
	req := &ProduceRequest{CorrelationID: 7}
	var s EffectStack
	out := []Out{{Kind: OutSend, Msg: req}, {Kind: OutSend, Msg: req}}
	held := s.Hold(&out) // depth 1 holds the two effects
	held.Notes = append(held.Notes, Batch{Records: []Record{{ID: RecordID{N: 1}}}})
	out = append(out, Out{Kind: OutSend, Msg: req})
	spare := s.Hold(&out) // depth 2: one effect, released below
	s.Release()
	_ = spare
	// depth 1's buffer: shorten it so that one element is stale.
	s.bufs[0].out = s.bufs[0].out[:1]
	s.ClearSpare()
	if got := s.bufs[0].out[:1]; got[0].Msg != req {
		t.Fatalf("a held effect was cleared: %+v", got[0])
	}
	if stale := s.bufs[0].out[1:2]; stale[0].Msg != nil {
		t.Fatalf("a held buffer's stale element still points into the run: %+v", stale[0])
	}
	if len(s.bufs[0].Notes) != 1 || s.bufs[0].Notes[0].Records == nil {
		t.Fatal("a held note was cleared")
	}
	if b := s.bufs[1]; len(b.out) != 0 || b.out[:cap(b.out)][0].Msg != nil {
		t.Fatalf("a spare depth's elements were kept: %+v", b.out[:cap(b.out)])
	}
}

// TestSlabSeal: a sealed slab takes its next value from a new chunk, not
// the rest of its current one, and leaves the values it handed out as
// they were.
func TestSlabSeal(t *testing.T) {
	var s Slab[Batch]
	a := s.Slice(2)
	a[0].FirstSeq = 5
	rest := s.free // where the next value would come from
	if len(rest) == 0 {
		t.Fatal("the first chunk has no room left; the test needs some")
	}
	s.Seal()
	b := s.New()
	if a[0].FirstSeq != 5 {
		t.Fatal("Seal changed a handed-out value")
	}
	if b == &rest[0] {
		t.Fatal("the value after Seal came from the sealed chunk")
	}
}
