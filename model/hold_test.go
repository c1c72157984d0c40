package model

import (
	"reflect"
	"testing"
)

// outsSnapshot copies outs deeply enough to tell whether anything they
// hold or point to (observations, expired batches) changed.
type outSnap struct {
	o   Out
	obs Obs
	b   Batch
}

func snapOuts(outs []Out) []outSnap {
	s := make([]outSnap, len(outs))
	for i, o := range outs {
		s[i].o = o
		if o.Obs != nil {
			s[i].obs = *o.Obs
		}
		if o.Batch != nil {
			s[i].b = *o.Batch
		}
	}
	return s
}

// TestHoldProducer: a producer's held effects do not change while it is
// called again and again (the world re-entering it); holds nest and are
// released in reverse order; after the release its buffers are reused;
// a slice that is not its last call's is not held.
func TestHoldProducer(t *testing.T) {
	pt := newPTest(t, nil)
	p := pt.p
	outs1 := p.Send(ms(1), Record{ID: RecordID{App: 0, N: 0}, Partition: 0})
	if len(outs1) == 0 {
		t.Fatal("no effects to hold")
	}
	if p.HoldEffects(append([]Out(nil), outs1...)) {
		t.Fatal("a copy of the effects was held")
	}
	if !p.HoldEffects(outs1) {
		t.Fatal("the last call's effects were not held")
	}
	snap1 := snapOuts(outs1)
	outs2 := p.Send(ms(2), Record{ID: RecordID{App: 0, N: 1}, Partition: 0})
	if !p.HoldEffects(outs2) {
		t.Fatal("the nested call's effects were not held")
	}
	snap2 := snapOuts(outs2)
	for n := int64(2); n < 40; n++ {
		p.Send(ms(3+n), Record{ID: RecordID{App: 0, N: n}, Partition: 0})
		p.Wake(ms(3+n), p.wakeToken)
	}
	if !reflect.DeepEqual(snapOuts(outs2), snap2) {
		t.Fatal("held effects of the nested call changed under later calls")
	}
	p.ReleaseEffects()
	for n := int64(40); n < 60; n++ {
		p.Send(ms(50+n), Record{ID: RecordID{App: 0, N: n}, Partition: 0})
	}
	if !reflect.DeepEqual(snapOuts(outs1), snap1) {
		t.Fatal("held effects changed under later calls")
	}
	p.ReleaseEffects()
	if p.held.depth != 0 || len(p.held.bufs) != 2 {
		t.Fatalf("after the releases: %d held, %d buffers", p.held.depth, len(p.held.bufs))
	}
	// Released buffers are reused: a held call and its release allocate
	// nothing once warm.
	i := int64(100)
	allocs := testing.AllocsPerRun(50, func() {
		outs := p.Wake(ms(200+i), p.wakeToken)
		if p.HoldEffects(outs) {
			p.ReleaseEffects()
		}
		i++
	})
	if allocs > 0 {
		t.Fatalf("a hold and release allocate %.1f times", allocs)
	}
}

// TestHoldBroker: a broker's held effects and the observations they
// point to do not change while it handles more requests.
func TestHoldBroker(t *testing.T) {
	r := newVerifyRun()
	b := r.b
	produce := func(n int64) []Out {
		return b.Step(ms(n), Peer{Node: 9, ReqNo: n}, &ProduceRequest{CorrelationID: n, Acks: -1, TimeoutMs: 1000,
			Batches: []Batch{{Partition: 0, PID: NoProducerID, Epoch: NoEpoch, FirstSeq: NoSequence, LastSeq: NoSequence,
				Records: []Record{{ID: RecordID{App: 0, N: n}, Partition: 0}}}}})
	}
	outs1 := produce(1)
	var hasObs bool
	for _, o := range outs1 {
		hasObs = hasObs || o.Obs != nil
	}
	if !hasObs {
		t.Fatal("no observation among the effects")
	}
	if !b.HoldEffects(outs1) {
		t.Fatal("the last call's effects were not held")
	}
	snap := snapOuts(outs1)
	for n := int64(2); n < 30; n++ {
		outs := produce(n)
		if n%3 == 0 && b.HoldEffects(outs) {
			b.ReleaseEffects()
		}
	}
	if !reflect.DeepEqual(snapOuts(outs1), snap) {
		t.Fatal("held effects or their observations changed under later calls")
	}
	b.ReleaseEffects()
}
