package client

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// outsSnapshot copies outs deeply enough to tell whether anything they
// hold or point to (observations, expired batches) changed.
type outSnap struct {
	o   model.Out
	obs model.Obs
	b   model.Batch
	res model.Outcome
	txn model.TxnResult
}

func snapOuts(outs []model.Out) []outSnap {
	s := make([]outSnap, len(outs))
	for i, o := range outs {
		s[i].o = o
		if o.Obs != nil {
			s[i].obs = *o.Obs
		}
		if o.Batch != nil {
			s[i].b = *o.Batch
		}
		if o.Result != nil {
			s[i].res = *o.Result
		}
		if o.Txn != nil {
			s[i].txn = *o.Txn
			s[i].txn.Records = slices.Clone(o.Txn.Records)
		}
	}
	return s
}

// TestHoldProducerResults: the outcomes a producer's held effects point
// to do not change while it acknowledges more records (each call writes
// its outcomes in the producer's buffer).
func TestHoldProducerResults(t *testing.T) {
	pt := newPTest(t, nil)
	p := pt.p
	ack := func(n int64) []model.Out {
		req := pt.send()
		pt.advance(time.Millisecond)
		return p.Receive(pt.now, 0, &model.ProduceResponse{CorrelationID: req.CorrelationID,
			Partitions: []model.PartitionResponse{{Partition: 0, BaseOffset: n}}})
	}
	outs1 := ack(0)
	var results int
	for _, o := range outs1 {
		if o.Kind == model.OutResult {
			results++
		}
	}
	if results == 0 {
		t.Fatal("no outcome among the effects")
	}
	if !p.HoldEffects(outs1) {
		t.Fatal("the last call's effects were not held")
	}
	snap := snapOuts(outs1)
	for n := int64(1); n < 30; n++ {
		if outs := ack(n); n%4 == 0 && p.HoldEffects(outs) {
			p.ReleaseEffects()
		}
	}
	if !reflect.DeepEqual(snapOuts(outs1), snap) {
		t.Fatal("held outcomes changed under later calls")
	}
	p.ReleaseEffects()
}

// TestHoldProducer: a producer's held effects do not change while it is
// called again and again (the world re-entering it); holds nest and are
// released in reverse order; after the release its buffers are reused;
// a slice that is not its last call's is not held.
func TestHoldProducer(t *testing.T) {
	pt := newPTest(t, nil)
	p := pt.p
	outs1 := p.Send(ms(1), model.Record{ID: model.RecordID{App: 0, N: 0}, Partition: 0})
	if len(outs1) == 0 {
		t.Fatal("no effects to hold")
	}
	if p.HoldEffects(append([]model.Out(nil), outs1...)) {
		t.Fatal("a copy of the effects was held")
	}
	if !p.HoldEffects(outs1) {
		t.Fatal("the last call's effects were not held")
	}
	snap1 := snapOuts(outs1)
	outs2 := p.Send(ms(2), model.Record{ID: model.RecordID{App: 0, N: 1}, Partition: 0})
	if !p.HoldEffects(outs2) {
		t.Fatal("the nested call's effects were not held")
	}
	snap2 := snapOuts(outs2)
	for n := int64(2); n < 40; n++ {
		p.Send(ms(3+n), model.Record{ID: model.RecordID{App: 0, N: n}, Partition: 0})
		p.Wake(ms(3+n), p.wakeToken)
	}
	if !reflect.DeepEqual(snapOuts(outs2), snap2) {
		t.Fatal("held effects of the nested call changed under later calls")
	}
	p.ReleaseEffects()
	for n := int64(40); n < 60; n++ {
		p.Send(ms(50+n), model.Record{ID: model.RecordID{App: 0, N: n}, Partition: 0})
	}
	if !reflect.DeepEqual(snapOuts(outs1), snap1) {
		t.Fatal("held effects changed under later calls")
	}
	p.ReleaseEffects()
	if p.held.Depth() != 0 || p.held.Levels() != 2 {
		t.Fatalf("after the releases: %d held, %d buffers", p.held.Depth(), p.held.Levels())
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

// keepOuts copies effects to keep past the node's next call: the outcomes
// and transaction results they point to, which live in the node's
// buffers, are copied too.
func keepOuts(outs []model.Out) []model.Out {
	cp := slices.Clone(outs)
	for i := range cp {
		if r := cp[i].Result; r != nil {
			v := *r
			cp[i].Result = &v
		}
		if r := cp[i].Txn; r != nil {
			v := *r
			v.Records = slices.Clone(v.Records)
			cp[i].Txn = &v
		}
	}
	return cp
}
